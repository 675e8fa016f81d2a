// The real-model path of `--engine ai-sdk`, end to end through @ai-sdk/openai-compatible over HTTP,
// against a small OpenAI-compatible server on the loopback interface that answers like the script.
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiSdkEngine, scriptedAnswer, usageLines } from './aiSdkEngine.js';
import { runDemo } from './runDemo.js';

interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string };
}

const requests: { body: ChatRequest; authorization: string | undefined }[] = [];
let server: Server;
let baseURL: string;

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += (chunk as Buffer).toString();
  return text;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void readBody(request).then((text) => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(text) as ChatRequest;
      requests.push({ body, authorization: request.headers.authorization });
      const system = body.messages.filter((message) => message.role === 'system').map((message) => message.content).join('\n');
      const user = body.messages.filter((message) => message.role === 'user').map((message) => message.content).join('\n');
      const content = JSON.stringify(scriptedAnswer(system, user));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 1_760_000_000,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 300 + requests.length, completion_tokens: 40, total_tokens: 340 + requests.length },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the demo with --engine ai-sdk and OPENAI_API_KEY set', () => {
  it('talks to an OpenAI-compatible server and records its token usage', async () => {
    const engine = aiSdkEngine({ OPENAI_API_KEY: 'sk-local-test', OPENAI_BASE_URL: baseURL, ROUNDTABLE_MODEL: 'local-model' });
    const report = await runDemo({ storage: 'memory', engine });
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    // Only the run-level checks apply to a real model.
    expect(report.checks.map((check) => check.name)).not.toContain('dispatch order is writer, reviewer, writer');
    expect(report.dispatchOrder).toEqual(['writer', 'reviewer', 'writer']);

    expect(requests).toHaveLength(3);
    for (const { body, authorization } of requests) {
      expect(authorization).toBe('Bearer sk-local-test');
      expect(body.model).toBe('local-model');
      // JSON mode, with the answer's JSON Schema in the system message for servers without structured outputs.
      expect(body.response_format?.type).toBe('json_object');
      expect(body.messages[0]!.content).toContain('matching this JSON Schema');
    }
    const writer = report.finalAnswers.find((answer) => answer.name === 'writer')!;
    expect(writer.data).toMatchObject({
      model: { modelId: 'local-model' },
      usage: { inputTokens: 303, outputTokens: 40, totalTokens: 343 },
      memberUsage: { inputTokens: 604, outputTokens: 80, totalTokens: 684 },
      finishReason: 'stop',
    });
    expect(usageLines(report.finalAnswers)).toContain('  writer: 684 tokens (604 in, 80 out) from local-model');
  });
});
