import { TeamError } from './errors.js';
import { git } from './git.js';

/**
 * Who a job is. The run id names the job's branches; the job id is drawn at random when the job
 * starts and recorded with its start commit in the run's first event, so a later job that reuses
 * the run id (on a fresh record) is another job. Every commit and ref update the job makes names
 * its job id.
 */
export interface JobIdentity {
  readonly runId: string;
  readonly jobId: string;
  readonly startCommit: string;
}

/**
 * Where a ref the job makes stands. `job`: this job made it and it holds the commit the job's
 * last update put there. `job-moved`: this job made it, and someone else moved it since.
 * `other`: this job did not make it.
 */
export type JobRefState =
  | { readonly owner: 'none' }
  | { readonly owner: 'job' | 'job-moved' | 'other'; readonly commit: string };

const reflogPrefix = (job: JobIdentity) => `roundtable job ${job.jobId}: `;
const createdMessage = (job: JobIdentity) => `${reflogPrefix(job)}create at the start commit`;

/**
 * Reads `ref` (a full ref name) and proves whose it is from git's reflog, which git writes under
 * the ref's lock with every update: the job made the ref when its oldest entry is the job's own
 * creation at the start commit (a ref deleted and made again starts a new log), and the ref is
 * where the job left it when its newest entry is the job's and names the commit the ref holds.
 */
export async function readJobRef(cwd: string, ref: string, job: JobIdentity): Promise<JobRefState> {
  const listed = (await git(cwd, ['for-each-ref', '--format=%(refname)%00%(objectname)%00%(symref)', ref])).stdout;
  const fields = listed
    .split('\n')
    .map((line) => line.split('\0'))
    .find(([name]) => name === ref);
  if (fields === undefined) return { owner: 'none' };
  const [, commit = '', symref = ''] = fields;
  if (symref !== '') return { owner: 'other', commit };
  const entries = (await git(cwd, ['reflog', 'show', '--format=%H%x09%gs', ref, '--'])).stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => ({ commit: line.slice(0, line.indexOf('\t')), message: line.slice(line.indexOf('\t') + 1) }));
  const [newest, oldest] = [entries[0], entries.at(-1)];
  if (oldest === undefined || oldest.commit !== job.startCommit || oldest.message !== createdMessage(job)) return { owner: 'other', commit };
  return { owner: newest!.commit === commit && newest!.message.startsWith(reflogPrefix(job)) ? 'job' : 'job-moved', commit };
}

/** `REF_EXISTS` for a ref the job may not move: nothing was created or moved for it. */
export function refExistsError(ref: string, commit: string, moved: boolean): TeamError {
  const what = moved
    ? `The ref ${ref} was moved (to ${commit}) since this job left it`
    : `The ref ${ref} exists (at ${commit}) and this job did not make it`;
  return new TeamError(
    'REF_EXISTS',
    `${what}; the job moves and deletes no ref it did not leave where it is. Keep what it holds elsewhere and delete it (git update-ref -d ${ref}), or use another run id.`,
    { details: { ref, commit, moved } },
  );
}

/** Refuses with `REF_EXISTS`, before anything is made, when one of `refs` is there and is not this job's where the job left it. */
export async function assertJobRefs(cwd: string, refs: readonly string[], job: JobIdentity): Promise<void> {
  for (const ref of refs) {
    const state = await readJobRef(cwd, ref, job);
    if (state.owner === 'other' || state.owner === 'job-moved') throw refExistsError(ref, state.commit, state.owner === 'job-moved');
  }
}

/**
 * The commit `ref` holds for this job; a missing ref is made at the start commit (only if it is
 * still missing, atomically). A ref the job did not make is `REF_EXISTS`, and so is one moved
 * since the job left it unless `allowMoved` (an agent's branch after its agent ran in this
 * attempt: the agent may have committed on it).
 */
export async function claimJobRef(cwd: string, ref: string, job: JobIdentity, allowMoved = false): Promise<string> {
  const state = await readJobRef(cwd, ref, job);
  if (state.owner === 'job' || (state.owner === 'job-moved' && allowMoved)) return state.commit;
  if (state.owner !== 'none') throw refExistsError(ref, state.commit, state.owner === 'job-moved');
  try {
    await git(cwd, ['update-ref', '--no-deref', '--create-reflog', '-m', createdMessage(job), ref, job.startCommit, '']);
  } catch (error) {
    // Someone made the ref since it was read: whose it is decides.
    if ((await readJobRef(cwd, ref, job)).owner !== 'none') return claimJobRef(cwd, ref, job, allowMoved);
    throw error;
  }
  return job.startCommit;
}

/** Moves a ref of this job from `from` (checked by git under the ref's lock) to `to`, naming the job in the reflog. */
export async function moveJobRef(cwd: string, ref: string, job: JobIdentity, to: string, from: string, why: string): Promise<void> {
  if (to === from) return;
  await git(cwd, ['update-ref', '--no-deref', '-m', `${reflogPrefix(job)}${why}`, ref, to, from]);
}
