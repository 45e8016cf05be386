/** Where a command reads its directory and environment and writes its output (tests pass their own). */
export interface CliIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress is drawn in place there). */
  isTTY?: boolean;
}
