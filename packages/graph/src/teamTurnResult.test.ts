import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TeamTurnResultSchema } from './index.js';
import type { GraphValidationIssue } from './index.js';
import { mutated } from './__fixtures__/mutations.js';
import { compileTeam, post, seedTeam, team } from './__fixtures__/teamFixtures.js';

/** Three members; rooms: `all` (a, b, c), `ab` (a, b), `c-only` (c). */
const graph = compileTeam(
  team({
    members: [{ id: 'a' }, { id: 'b' }, { id: 'c' }],
    rooms: [
      { id: 'all', members: ['a', 'b', 'c'] },
      { id: 'ab', members: ['a', 'b'] },
      { id: 'c-only', members: ['c'] },
    ],
  }),
);

function check(memberId: string, result: unknown): GraphValidationIssue | null {
  return graph.validateNodeResult!(memberId, result);
}

function pathOf(memberId: string, result: unknown): string {
  const issue = check(memberId, result);
  expect(issue).not.toBeNull();
  expect(issue!.code).toBe('RESULT_INVALID');
  expect(typeof issue!.message).toBe('string');
  return issue!.path;
}

describe('validateNodeResult: valid results', () => {
  it.each([
    ['a summary only', { summary: '' }],
    ['data', { summary: 's', data: { nested: [1, 'x', null, { y: true }] } }],
    ['null data', { summary: 's', data: null }],
    ['an empty posts list', { summary: 's', posts: [] }],
    ['empty and multi-line text', { summary: 's', posts: [post('all', ''), post('ab', 'line 1\nline 2\r\n\ttabbed')] }],
    ['mentions of room members', { summary: 's', posts: [post('all', 'hi', ['b', 'c']), post('ab', 'hi', ['b'])] }],
    ['a self-mention', { summary: 's', posts: [post('all', 'note to self', ['a'])] }],
    ['a repeated mention', { summary: 's', posts: [post('all', 'hi', ['b', 'b'])] }],
    ['extra result fields (kept with the result)', { summary: 's', confidence: 0.5 }],
  ])('accepts %s', (_label, result) => {
    expect(check('a', result)).toBeNull();
    expect(TeamTurnResultSchema.safeParse(result).success).toBe(true);
  });
});

describe('validateNodeResult: malformed shapes never throw', () => {
  it.each([
    ['null', null, ''],
    ['an array', [], ''],
    ['a string', 'answer', ''],
    ['a number', 42, ''],
    ['undefined', undefined, ''],
    ['an empty object', {}, '/summary'],
    ['a numeric summary', { summary: 1 }, '/summary'],
    ['non-JSON data', { summary: 's', data: { x: undefined } }, '/data/x'],
    ['posts: null', { summary: 's', posts: null }, '/posts'],
    ['posts: {}', { summary: 's', posts: {} }, '/posts'],
    ['posts: undefined', { summary: 's', posts: undefined }, '/posts'],
    ['posts: [null]', { summary: 's', posts: [null] }, '/posts/0'],
    ['posts: ["text"]', { summary: 's', posts: ['text'] }, '/posts/0'],
    ['a numeric roomId', { summary: 's', posts: [{ roomId: 1, text: 't', mentions: [] }] }, '/posts/0/roomId'],
    ['a missing roomId', { summary: 's', posts: [{ text: 't', mentions: [] }] }, '/posts/0/roomId'],
    ['a numeric text', { summary: 's', posts: [{ roomId: 'all', text: 1, mentions: [] }] }, '/posts/0/text'],
    ['mentions: "x"', { summary: 's', posts: [{ roomId: 'all', text: 't', mentions: 'x' }] }, '/posts/0/mentions'],
    ['missing mentions', { summary: 's', posts: [{ roomId: 'all', text: 't' }] }, '/posts/0/mentions'],
    ['mentions: [1]', { summary: 's', posts: [{ roomId: 'all', text: 't', mentions: [1] }] }, '/posts/0/mentions/0'],
    ['an unknown post field (it would be lost)', { summary: 's', posts: [{ ...post('all', 't'), to: 'b' }] }, '/posts/0/to'],
    ['a lone surrogate in a post', { summary: 's', posts: [post('all', 'bad \ud800')] }, '/posts/0/text'],
    ['a non-JSON extra field', { summary: 's', extra: new Map() }, '/extra'],
  ])('refuses %s', (_label, result, path) => {
    expect(() => check('a', result)).not.toThrow();
    expect(pathOf('a', result)).toBe(path);
  });

  it('refuses a cyclic result without throwing', () => {
    const result: Record<string, unknown> = { summary: 's' };
    result['self'] = result;
    expect(pathOf('a', result)).toBe('/self');
  });

  it('refuses a result nested too deeply for the final answer to stay JSON', () => {
    let data: unknown = 0;
    for (let level = 0; level < 252; level++) data = [data];
    expect(check('a', { summary: 's', data })).toBeNull();
    expect(pathOf('a', { summary: 's', data: [data] })).toBe('');
  });
});

describe('validateNodeResult: room membership', () => {
  it('refuses a post to a room the sender is not in', () => {
    expect(pathOf('c', { summary: 's', posts: [post('ab', 'sneaky')] })).toBe('/posts/0/roomId');
    expect(pathOf('a', { summary: 's', posts: [post('c-only', 'sneaky')] })).toBe('/posts/0/roomId');
  });

  it('refuses a post to an undeclared room', () => {
    expect(pathOf('a', { summary: 's', posts: [post('nowhere', 'hi')] })).toBe('/posts/0/roomId');
  });

  it('refuses a mention of a member outside the room, or of an undeclared member', () => {
    expect(pathOf('a', { summary: 's', posts: [post('ab', 'hi', ['b', 'c'])] })).toBe('/posts/0/mentions/1');
    expect(pathOf('a', { summary: 's', posts: [post('all', 'hi', ['ghost'])] })).toBe('/posts/0/mentions/0');
  });

  it('rejects the whole result for one bad post among good ones', () => {
    const result = { summary: 's', posts: [post('all', 'fine', ['b']), post('ab', 'fine'), post('ab', 'bad', ['c']), post('all', 'fine')] };
    expect(pathOf('a', result)).toBe('/posts/2/mentions/0');
  });

  it('refuses posts, even an empty list, when the team declares no communication', () => {
    const quiet = compileTeam(team({ members: [{ id: 'a' }], rooms: null }));
    expect(quiet.validateNodeResult!('a', { summary: 's' })).toBeNull();
    expect(quiet.validateNodeResult!('a', { summary: 's', posts: [] })?.path).toBe('/posts');
    expect(quiet.validateNodeResult!('a', { summary: 's', posts: [post('all', 'x')] })?.path).toBe('/posts');
  });

  it('refuses a result from a member the team does not declare', () => {
    expect(pathOf('ghost', { summary: 's' })).toBe('');
  });

  it('follows the seed rooms: writer and reviewer may talk in "review"', () => {
    const seed = compileTeam(seedTeam());
    expect(seed.validateNodeResult!('writer', { summary: 'draft', posts: [post('review', 'Please review', ['reviewer'])] })).toBeNull();
    expect(seed.validateNodeResult!('reviewer', { summary: 'ok', posts: [post('review', 'Looks good', ['writer'])] })).toBeNull();
  });
});

describe('validateNodeResult: messages name what was wrong (SPEC 11.5)', () => {
  const messageOf = (memberId: string, result: unknown) => check(memberId, result)!.message;

  it('names the room and the member at fault for a refused post', () => {
    expect(messageOf('c', { summary: 's', posts: [post('ab', 'hi')] })).toBe('Member "c" is not in room "ab".');
    expect(messageOf('a', { summary: 's', posts: [post('nowhere', 'hi')] })).toBe('Member "a" posted to room "nowhere", which this team does not declare.');
    expect(messageOf('a', { summary: 's', posts: [post('ab', 'hi', ['c'])] })).toBe('Member "a" mentioned "c", who is not a member of room "ab".');
    expect(messageOf('a', { summary: 's', posts: [{ roomId: 'ab', text: 'hi', mentions: [7] }] })).toBe('A mention by "a" in room "ab" must be a member id (found a number).');
    expect(messageOf('b', { summary: 's', posts: [{ roomId: null, text: 'hi', mentions: [] }] })).toBe('A post by "b" must name a declared room (roomId is null).');
  });

  it.each([
    ['undefined', { summary: 's', data: { x: undefined } }, '/data/x', 'undefined'],
    ['a Date', { summary: 's', data: new Date(0) }, '/data', 'a Date'],
    ['NaN', { summary: 's', data: [1, Number.NaN] }, '/data/1', 'NaN'],
    ['a BigInt', { summary: 's', data: { n: 1n } }, '/data/n', 'a BigInt'],
    ['a function', { summary: 's', data: { f: () => 1 } }, '/data/f', 'a function'],
    ['a lone surrogate', { summary: 's', data: 'a\ud800' }, '/data', 'a string with a lone surrogate'],
  ])('says where %s was found in data', (_name, result, path, found) => {
    const issue = check('a', result)!;
    expect(issue.path).toBe(path);
    expect(issue.message).toBe(`Found ${found}, which is not JSON.`);
  });
});

describe('validateNodeResult and TeamTurnResultSchema', () => {
  it('agree on the shape: the check adds only the room rules to what the schema refuses', () => {
    const valid = { summary: 's', data: { n: [1] }, posts: [post('ab', 'hi', ['b']), post('all', '', ['a', 'c'])] };
    let accepted = 0;
    fc.assert(
      fc.property(
        mutated(valid).map((value) => JSON.parse(JSON.stringify(value ?? null)) as unknown),
        (result) => {
          const issue = check('a', result);
          const schemaAccepts = TeamTurnResultSchema.safeParse(result).success;
          if (issue === null) accepted++;
          // Valid for the team implies a valid shape; a refused shape is refused by the team.
          if (issue === null) expect(schemaAccepts).toBe(true);
          if (!schemaAccepts) expect(issue).not.toBeNull();
        },
      ),
      { numRuns: 1000 },
    );
    expect(accepted).toBeGreaterThan(50);
  });
});
