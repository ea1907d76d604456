/**
 * Config sections owned by other parts of rowsim (the contention model), validated with their own
 * schemas and carried through to the run as resolved specs.
 */
import type { z } from 'zod';

export interface SectionResults {
  contention?: unknown;
}

export function sectionSchemas(): Record<string, z.ZodType<unknown>> {
  return {};
}
