import { SpanKind, SpanStatusCode, context, isSpanContextValid, trace } from '@opentelemetry/api';
import type { Attributes, HrTime, Span, Tracer } from '@opentelemetry/api';
import type { GraphRunResult } from './graphRunResult.js';

/** The instrumentation scope of the scheduler's spans. */
export const SCHEDULER_TRACER_NAME = '@roundtable/scheduler';

/**
 * The tracer the executor uses: the host's `tracer` option, else the global provider's. The
 * global tracer is a proxy, so a provider registered after the executor was created still
 * receives the spans; without one every span is a no-op. Nothing here touches the record.
 */
export function schedulerTracer(tracer: Tracer | undefined): Tracer {
  return tracer ?? trace.getTracer(SCHEDULER_TRACER_NAME);
}

/**
 * The time of a span's start or end, as [seconds, nanoseconds] since the epoch, from one
 * monotonic clock (the process's time origin plus `performance.now()`). Left to itself, the
 * OpenTelemetry SDK starts a span at `Date.now()`, cut to the millisecond, and ends it at that
 * start plus its measured duration, so an attempt's span could seem to end up to a millisecond
 * after the call that contains it. The executor gives every span it starts or ends its times
 * from here instead: a start cut to the millisecond as the SDK cuts the spans a member starts
 * itself (so those still start within their attempt's span), and an end to the nanosecond.
 */
export function spanTime(at: 'start' | 'end'): HrTime {
  const millis = performance.timeOrigin + performance.now();
  const whole = Math.floor(millis);
  // The rest of the millisecond in nanoseconds, capped so rounding never carries: the pair grows with the clock.
  const nanos = at === 'start' ? 0 : Math.min(999_999, Math.round((millis - whole) * 1e6));
  return [Math.floor(whole / 1000), (whole % 1000) * 1e6 + nanos];
}

export interface WorkflowSpanInfo {
  readonly definitionId: string;
  readonly runId: string;
  /** `serve` for each pass of a `serve` call (one `run` each). */
  readonly operation: 'run' | 'resume' | 'serve';
  /** The position a `resume` call names. */
  readonly position?: string;
}

/**
 * Runs one `run` or `resume` call inside an `invoke_workflow <definition id>` span (SPEC 13):
 * `roundtable.outcome` is the result's kind and `roundtable.revision` the last revision folded
 * when the call ends. A `fail` result, or a call that throws, sets status ERROR with
 * `error.type` = the failure or error code.
 */
export function traceWorkflow(tracer: Tracer, info: WorkflowSpanInfo, revision: () => number, body: () => Promise<GraphRunResult>): Promise<GraphRunResult> {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'invoke_workflow',
    'gen_ai.conversation.id': info.runId,
    'roundtable.operation': info.operation,
  };
  if (info.position !== undefined) attributes['roundtable.position'] = info.position;
  return tracer.startActiveSpan(`invoke_workflow ${info.definitionId}`, { kind: SpanKind.INTERNAL, attributes, startTime: spanTime('start') }, async (span) => {
    try {
      const result = await body();
      span.setAttribute('roundtable.outcome', result.kind);
      if (result.kind === 'fail') failSpan(span, result.code, result.message);
      return result;
    } catch (error) {
      failSpan(span, errorType(error), error instanceof Error ? error.message : String(error));
      if (error instanceof Error) span.recordException(error);
      throw error;
    } finally {
      span.setAttribute('roundtable.revision', revision());
      span.end(spanTime('end'));
    }
  });
}

export interface AttemptSpanInfo {
  readonly memberId: string;
  readonly runId: string;
  readonly position: string;
  readonly attempt: number;
}

/** What an attempt ended as, for its span. */
export type AttemptSpanOutcome =
  | { readonly kind: 'completed' | 'paused' | 'aborted' }
  | { readonly kind: 'failed'; readonly code: string; readonly message: string };

/** One attempt's `invoke_agent <memberId>` span; member code runs inside it with `within`. */
export interface AttemptSpan {
  /** Runs `work` with this span active, so spans the member starts (the AI SDK's) nest under it. */
  within<T>(work: () => T): T;
  end(outcome: AttemptSpanOutcome): void;
}

/** Starts the span of one attempt as a child of the active (workflow) span. */
export function startAttemptSpan(tracer: Tracer, info: AttemptSpanInfo): AttemptSpan {
  const span = tracer.startSpan(`invoke_agent ${info.memberId}`, {
    kind: SpanKind.INTERNAL,
    startTime: spanTime('start'),
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': info.memberId,
      'gen_ai.conversation.id': info.runId,
      'roundtable.position': info.position,
      'roundtable.attempt': info.attempt,
    },
  });
  // A span that records nothing and has no valid context (no tracer provider is registered)
  // would only hide the active context from the member's own spans behind an invalid one, which
  // they treat as no parent at all: the member then runs in the active context as it is, and
  // no context is made per attempt.
  const active = span.isRecording() || isSpanContextValid(span.spanContext()) ? trace.setSpan(context.active(), span) : null;
  let ended = false;
  return {
    within: (work) => (active === null ? work() : context.with(active, work)),
    end(outcome) {
      if (ended) return;
      ended = true;
      span.setAttribute('roundtable.attempt.outcome', outcome.kind);
      if (outcome.kind === 'failed') failSpan(span, outcome.code, outcome.message);
      span.end(spanTime('end'));
    },
  };
}

function failSpan(span: Span, code: string, message: string): void {
  span.setAttribute('error.type', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (error instanceof Error) return error.name;
  }
  return '_OTHER';
}

/** The span outcome of an attempt from the outcome event written for it (null: nothing written). */
const COMPLETED_SPAN: AttemptSpanOutcome = Object.freeze({ kind: 'completed' });
const PAUSED_SPAN: AttemptSpanOutcome = Object.freeze({ kind: 'paused' });
const ABORTED_SPAN: AttemptSpanOutcome = Object.freeze({ kind: 'aborted' });

export function attemptSpanOutcome(written: { readonly type: string; readonly payload: unknown } | null): AttemptSpanOutcome {
  if (written === null) return ABORTED_SPAN;
  if (written.type === 'graph:node-completed') return COMPLETED_SPAN;
  if (written.type === 'graph:node-paused') return PAUSED_SPAN;
  const { code, message } = written.payload as { code: string; message: string };
  return { kind: 'failed', code, message };
}
