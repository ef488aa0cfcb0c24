import { describe, expect, it } from 'vitest';
import { baseUrlsOf, clientEnv, curlExample, firstModelOf } from './connection-info';

describe('token connection info', () => {
  it('gives the OpenAI SDKs the address with /v1 and Anthropic and Gemini the bare address, without a trailing slash', () => {
    expect(baseUrlsOf('https://gw.example.com/')).toEqual({
      openai: 'https://gw.example.com/v1',
      anthropic: 'https://gw.example.com',
      gemini: 'https://gw.example.com',
    });
  });

  it("names the token's first allowed model, else the first model of the user's groups", () => {
    expect(firstModelOf({ model_limits_enabled: true, model_limits: ' , claude-3-haiku,gpt-4o' }, ['gpt-4o-mini'])).toBe('claude-3-haiku');
    // Limits switched off (or empty) do not count.
    expect(firstModelOf({ model_limits_enabled: false, model_limits: 'claude-3-haiku' }, ['gpt-4o-mini'])).toBe('gpt-4o-mini');
    expect(firstModelOf({ model_limits_enabled: true, model_limits: '' }, ['gpt-4o-mini'])).toBe('gpt-4o-mini');
    expect(firstModelOf({ model_limits_enabled: false, model_limits: '' }, [])).toBeUndefined();
  });

  it('writes a cURL call of chat completions that a shell runs as is, quotes included', () => {
    const curl = curlExample('https://gw.example.com', 'sk-abc', "it's-model");
    expect(curl).toBe(
      [
        "curl 'https://gw.example.com/v1/chat/completions' \\",
        "  -H 'Content-Type: application/json' \\",
        "  -H 'Authorization: Bearer sk-abc' \\",
        `  -d '{"model":"it'\\''s-model","messages":[{"role":"user","content":"Hello!"}]}'`,
      ].join('\n'),
    );
  });

  it('sets the variables Codex, Claude Code and the Gemini CLI read', () => {
    expect(clientEnv('codex', 'https://gw.example.com', 'sk-abc')).toBe("export OPENAI_BASE_URL='https://gw.example.com/v1'\nexport OPENAI_API_KEY='sk-abc'");
    expect(clientEnv('claudeCode', 'https://gw.example.com', 'sk-abc')).toBe(
      "export ANTHROPIC_BASE_URL='https://gw.example.com'\nexport ANTHROPIC_AUTH_TOKEN='sk-abc'",
    );
    expect(clientEnv('geminiCli', 'https://gw.example.com', 'sk-abc')).toBe(
      "export GOOGLE_GEMINI_BASE_URL='https://gw.example.com'\nexport GEMINI_API_KEY='sk-abc'",
    );
  });
});
