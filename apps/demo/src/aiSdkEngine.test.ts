import { describe, expect, it } from 'vitest';
import { aiSdkEngine, usageLines } from './aiSdkEngine.js';
import { runDemo } from './runDemo.js';

describe('the demo with --engine ai-sdk', () => {
  it('runs offline by default with the scripted mock model and passes the same checks', async () => {
    const engine = aiSdkEngine({});
    expect(engine.scripted).toBe(true);
    const report = await runDemo({ storage: 'fs', engine });
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.checks.map((check) => check.name)).toContain("the writer's final answer contains the reviewer's reply");
    expect(report.ok).toBe(true);
    expect(report.dispatchOrder).toEqual(['writer', 'reviewer', 'writer']);
    expect(report.roomFiles[0]!.text).toContain('reviewer [team/reviewer/1/0] @writer: ');
    const writer = report.finalAnswers.find((answer) => answer.name === 'writer')!;
    expect(writer.data).toMatchObject({ model: { provider: 'scripted', modelId: 'release-team-script' }, finishReason: 'stop' });
    const usage = (writer.data as { usage: { totalTokens: number }; memberUsage: { totalTokens: number } });
    expect(usage.memberUsage.totalTokens).toBeGreaterThan(usage.usage.totalTokens);
    expect(usageLines(report.finalAnswers).join('\n')).toMatch(/writer: \d+ tokens \(\d+ in, \d+ out\) from release-team-script/);
  });

  it('uses a real OpenAI-compatible model only when OPENAI_API_KEY is set', () => {
    const engine = aiSdkEngine({ OPENAI_API_KEY: 'sk-test-not-used', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', ROUNDTABLE_MODEL: 'llama3.2' });
    expect(engine.scripted).toBe(false);
    expect(engine.name).toBe('ai-sdk (llama3.2 at http://127.0.0.1:9/v1)');
  });
});
