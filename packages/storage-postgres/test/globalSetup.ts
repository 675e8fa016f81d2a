import type { TestProject } from 'vitest/node';
import { setupPostgres } from '@roundtable/test-utils';

export default (project: TestProject) => setupPostgres(project);
