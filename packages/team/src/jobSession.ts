import { isTeamError } from './errors.js';
import { gitText } from './git.js';
import { inspectRepository } from './repository.js';
import type { RepositoryInfo } from './repository.js';
import type { ResolvedTeamConfig } from './teamConfig.js';
import { workspaceLayout } from './worktrees.js';
import type { WorkspaceLayout } from './worktrees.js';

/**
 * What the bindings of one `run` or `resume` call share. A runtime step that fails (a git
 * command, the repository check) stops the whole call: the session's signal aborts, so the
 * executor records nothing for the attempts in flight, and the call throws that error. Such
 * a failure is about the machine, not the agent, so it never becomes a recorded outcome; the
 * attempts stay unfinished and the job can be resumed once the cause is fixed.
 */
export class JobSession {
  readonly runId: string;
  readonly config: ResolvedTeamConfig;
  readonly #controller = new AbortController();
  readonly #unlink: () => void;
  #repository: Promise<RepositoryInfo> | null = null;
  #dates = new Map<string, Promise<string>>();
  #error: Error | null = null;

  constructor(config: ResolvedTeamConfig, runId: string, signal: AbortSignal | undefined) {
    this.config = config;
    this.runId = runId;
    const abort = () => this.#controller.abort(signal?.reason);
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    this.#unlink = () => signal?.removeEventListener('abort', abort);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The runtime failure that stopped this call, or null. */
  get error(): Error | null {
    return this.#error;
  }

  repository(): Promise<RepositoryInfo> {
    this.#repository ??= inspectRepository(this.config.repository);
    return this.#repository;
  }

  async layout(): Promise<WorkspaceLayout> {
    return workspaceLayout(await this.repository(), this.config.workspaceRoot);
  }

  /** The date of every runtime commit of the job: its start commit's committer date, so commits are reproducible. */
  commitDate(startCommit: string): Promise<string> {
    let date = this.#dates.get(startCommit);
    if (date === undefined) {
      date = this.repository().then(async (repository) => `@${await gitText(repository.topLevel, ['show', '-s', '--format=%ct', startCommit])} +0000`);
      this.#dates.set(startCommit, date);
    }
    return date;
  }

  /**
   * Runs a runtime step of an attempt. It refuses to start once the call is stopping; a
   * `TeamError` it throws stops the call (other errors are the attempt's own failure).
   */
  async step<T>(work: () => Promise<T>): Promise<T> {
    if (this.#controller.signal.aborted) throw new Error('The job is stopping.');
    try {
      return await work();
    } catch (error) {
      if (isTeamError(error)) this.stop(error);
      throw error;
    }
  }

  stop(error: Error): void {
    if (this.#error === null) this.#error = error;
    this.#controller.abort(error);
  }

  dispose(): void {
    this.#unlink();
  }
}
