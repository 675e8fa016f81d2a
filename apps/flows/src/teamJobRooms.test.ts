import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectTeamRooms } from '@roundtable/rooms';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { team } from '@roundtable/team';
import { scratchRepository, tempDirectory } from '@roundtable/test-utils';

// A record of a callable team job (graph kind 'team-job', @roundtable/team) given to the room
// projector of team conversations (@roundtable/rooms): refused, and nothing is written.

const agent = (name: string) => ({ name, role: 'role', brief: 'brief', run: () => ({ status: 'pass' as const, summary: 'ok' }) });

describe('a team job record and the room projector', () => {
  it('projectTeamRooms refuses a team job with STORED_GRAPH_MISMATCH before any file exists', async () => {
    const repo = await scratchRepository();
    const rooms = tempDirectory('flows-rooms-');
    try {
      const storage = createMemoryStorage();
      await team({ task: 'T.', repository: repo.dir, agents: [agent('a')] }).run({ storage, runId: 'job' });
      await expect(projectTeamRooms({ storage, runId: 'job', directory: join(rooms.directory, 'out') })).rejects.toMatchObject({ code: 'STORED_GRAPH_MISMATCH' });
      expect(existsSync(join(rooms.directory, 'out'))).toBe(false);
    } finally {
      await repo.remove();
      rooms.cleanup();
    }
  });
});
