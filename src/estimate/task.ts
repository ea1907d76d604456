/** Worker task (kind 'estimate'): simulate one candidate value of the reserve knob, every replicate. */
import { simulateCandidate, type CandidateTask, type ReplicateFigures } from './simulate.js';

export function runTask(payload: unknown): ReplicateFigures[] {
  return simulateCandidate(payload as CandidateTask);
}
