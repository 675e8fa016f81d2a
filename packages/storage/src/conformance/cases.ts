import type { ConformanceCaseDefinition } from './caseDefinition.js';
import { durabilityCases } from './durabilityCases.js';
import { followCases } from './followCases.js';
import { instanceCases } from './instanceCases.js';
import { limitCases } from './limitCases.js';
import { modelCases } from './modelCase.js';
import { readCases } from './readCases.js';
import { revisionCases } from './revisionCases.js';
import { secretCases } from './secretCases.js';
import { unicodeCases } from './unicodeCases.js';
import { validationCases } from './validationCases.js';

/** Every case, in the order the kit runs them. */
export const conformanceCases: readonly ConformanceCaseDefinition[] = [
  ...durabilityCases,
  ...readCases,
  ...revisionCases,
  ...validationCases,
  ...unicodeCases,
  ...limitCases,
  ...secretCases,
  ...instanceCases,
  ...modelCases,
  ...followCases,
];
