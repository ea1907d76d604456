/**
 * Config sections owned by other parts of rowsim (the contention model), validated with their own
 * schemas and carried through to the run as resolved specs.
 */
import type { z } from 'zod';
import { contentionSchema, type ContentionSpec } from '../contention/schema.js';

export interface SectionResults {
  contention?: ContentionSpec;
}

export function sectionSchemas(): Record<keyof SectionResults, z.ZodType<unknown>> {
  return { contention: contentionSchema as z.ZodType<unknown> };
}
