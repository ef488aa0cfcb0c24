export type AgentCliName = 'claude' | 'codex' | 'gemini';

export declare const AGENT_CLIS: Readonly<Record<AgentCliName, { package: string; version: string; bin: string; node: boolean }>>;
/** $MODELGATE_AGENT_CLI_DIR, else ~/.cache/modelgate/agent-clis/<hash of the versions>. */
export declare function agentCliDir(env?: NodeJS.ProcessEnv): string;
/** The command that runs one CLI and the arguments that go before the CLI's own. */
export declare function agentCliCommand(name: AgentCliName, dir?: string): { command: string; args: string[] };
export declare function agentClisInstalled(dir?: string): boolean;
/** Installs the pinned CLIs into the folder unless they are there (under a lock). */
export declare function ensureAgentClis(options?: {
  dir?: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}): Promise<{ dir: string; installed: boolean }>;
