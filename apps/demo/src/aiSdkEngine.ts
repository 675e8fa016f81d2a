// `pnpm demo -- --engine ai-sdk`: the release team's members as model-backed members.
// Offline (the default) one scripted MockLanguageModelV3 plays writer and reviewer from the
// prompts it is given; with OPENAI_API_KEY set it is a real OpenAI-compatible model.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { aiSdkMember } from '@roundtable/ai-sdk';
import { teamMembers } from '@roundtable/runtime';
import type { NodeBinding } from '@roundtable/runtime';
import type { LanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { REVIEW_REPLY, releaseGraph } from './teamConversation.js';

export interface DemoEngine {
  readonly name: string;
  readonly nodes: Readonly<Record<string, NodeBinding>>;
  /** True when the conversation is scripted, so its exact course can be checked. */
  readonly scripted: boolean;
}

type Answer = { summary: string; posts?: { roomId: string; text: string; mentions: string[] }[] };

/** Rough token counts for the mock (about four characters a token), so usage is not all zeros. */
const tokens = (text: string) => Math.ceil(text.length / 4);

/** What the writer or the reviewer answers, read from the prompt like a model would. */
export function scriptedAnswer(system: string, user: string): Answer {
  if (system.startsWith('You are "reviewer"')) {
    const draft = /^..writer \[[^\]]+\] @reviewer: (.*)$/m.exec(user)?.[1] ?? '';
    return { summary: `Reviewed "${draft}".`, posts: [{ roomId: 'review', text: REVIEW_REPLY, mentions: ['writer'] }] };
  }
  if (user.includes('this is your first turn')) {
    return {
      summary: 'Drafted the release notes and asked for a review.',
      posts: [{ roomId: 'review', text: 'Draft: Version 2.0 adds durable rooms. Please review.', mentions: ['reviewer'] }],
    };
  }
  const reply = /^..reviewer \[[^\]]+\] @writer: (.*)$/m.exec(user)?.[1] ?? '(no reply)';
  return { summary: `Final notes: Version 2.0 adds durable rooms. Review applied: ${reply}` };
}

/** One mock model for both members: it answers from the prompt, never from hidden state. */
export function scriptedReleaseModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: 'scripted',
    modelId: 'release-team-script',
    doGenerate: ({ prompt }) => {
      const system = prompt.flatMap((message) => (message.role === 'system' ? [message.content] : [])).join('\n');
      const user = prompt.flatMap((message) => (message.role === 'user' ? message.content.map((part) => (part.type === 'text' ? part.text : '')) : [])).join('\n');
      const text = JSON.stringify(scriptedAnswer(system, user));
      const input = tokens(system) + tokens(user);
      return Promise.resolve({
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: tokens(text), text: tokens(text), reasoning: undefined },
        },
        warnings: [],
      });
    },
  });
}

/** A real model when OPENAI_API_KEY is set (OPENAI_BASE_URL and ROUNDTABLE_MODEL optional). */
function environmentModel(env: NodeJS.ProcessEnv): { model: LanguageModel; name: string } | null {
  const apiKey = env['OPENAI_API_KEY'];
  if (apiKey === undefined || apiKey === '') return null;
  const baseURL = env['OPENAI_BASE_URL'] || 'https://api.openai.com/v1';
  const modelId = env['ROUNDTABLE_MODEL'] || 'gpt-4o-mini';
  const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey });
  return { model: provider.chatModel(modelId), name: `${modelId} at ${baseURL}` };
}

export function aiSdkEngine(env: NodeJS.ProcessEnv = process.env): DemoEngine {
  const real = environmentModel(env);
  const model = real?.model ?? scriptedReleaseModel();
  const limits = { timeoutMs: real === null ? 10_000 : 120_000 };
  return {
    name: real === null ? 'ai-sdk (scripted MockLanguageModelV3, offline)' : `ai-sdk (${real.name})`,
    scripted: real === null,
    nodes: teamMembers(releaseGraph, {
      writer: aiSdkMember(releaseGraph, 'writer', { model, limits, instructions: 'Keep every message under 60 words.' }),
      reviewer: aiSdkMember(releaseGraph, 'reviewer', { model, limits, instructions: 'Reply with one concrete suggestion.' }),
    }),
  };
}

/** "Token usage" lines for the members whose results carry the ai-sdk usage figures. */
export function usageLines(answers: readonly { name: string; data: unknown }[]): string[] {
  const lines: string[] = [];
  for (const answer of answers) {
    const data = answer.data as { model?: { modelId?: string }; memberUsage?: { inputTokens: number; outputTokens: number; totalTokens: number } } | null;
    if (data?.memberUsage === undefined) continue;
    const { inputTokens, outputTokens, totalTokens } = data.memberUsage;
    lines.push(`  ${answer.name}: ${totalTokens} tokens (${inputTokens} in, ${outputTokens} out) from ${data.model?.modelId ?? 'a model'}`);
  }
  return lines.length === 0 ? [] : ['', 'Token usage over the run:', ...lines];
}
