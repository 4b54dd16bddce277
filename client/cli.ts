/**
 * The `herald` command line (docs/cli.md). Errors are one clear line on stderr; `--json` prints
 * machine-readable results on stdout. Exit codes: 0 ok, 1 error, 2 usage, 3 the turn failed,
 * 4 the turn was interrupted.
 *
 * This file only wires the commands: each lives in client/commands/, as a function that registers
 * it on the program; `--help` lists them in the order of COMMANDS. A new command is a module there
 * and a line here.
 *
 * Start-up time is the CLI's first impression (`npm run bench` measures it): only what the command
 * definitions need is imported; each command imports its heavy modules (the Temporal client,
 * Postgres, the worker, the tools) in its action, so `herald --help` loads commander and little else.
 */
import { Command, CommanderError } from 'commander';
import pc from 'picocolors';
import { tracingWanted } from '../runtime/tracing-config.js';
import { configFor } from './cli-config.js';
import { registerApprovals } from './commands/approvals.js';
import { registerCheckpoints } from './commands/checkpoints.js';
import { registerChildren } from './commands/children.js';
import { registerCheckCommand, registerDoctor, registerScanText } from './commands/checks.js';
import { registerCodecKey, registerCodecServer } from './commands/codec.js';
import { registerAnswer, registerApprove } from './commands/decisions.js';
import { registerDeploy } from './commands/deploy.js';
import { registerMemory } from './commands/memory.js';
import { registerSchedule } from './commands/schedule.js';
import {
  registerCompress,
  registerModel,
  registerSend,
  registerSteer,
  registerStopAndEnd,
  registerWatch,
} from './commands/session.js';
import { registerSessions, registerUsage } from './commands/sessions.js';
import { EXIT, describeError } from './commands/shared.js';
import { registerDemo, registerDev, registerWorker } from './commands/stack.js';
import { registerChat, registerStart } from './commands/start.js';
import { registerState } from './commands/state.js';
import { registerMcp, registerSkills, registerTools } from './commands/tools.js';

/** Every command, in the order `herald --help` lists them. */
const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerDev,
  registerWorker,
  registerDeploy,
  registerStart,
  registerSchedule,
  registerSend,
  registerStopAndEnd,
  registerApprove,
  registerAnswer,
  registerCompress,
  registerModel,
  registerSteer,
  registerState,
  registerChildren,
  registerCheckpoints,
  registerChat,
  registerWatch,
  registerDoctor,
  registerCheckCommand,
  registerScanText,
  registerTools,
  registerMcp,
  registerSkills,
  registerMemory,
  registerApprovals,
  registerSessions,
  registerUsage,
  registerCodecServer,
  registerCodecKey,
  registerDemo,
];

export function buildProgram(): Command {
  const program = new Command('herald')
    .description('Durable agent conversations on Temporal')
    .showHelpAfterError()
    .exitOverride()
    .hook('preAction', (_program, command) => configFor(command.name()));
  for (const register of COMMANDS) register(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  let tracing: { shutdown(): Promise<void> } | undefined;
  try {
    // Traces (off unless OTEL_* asks): the SDK is loaded only then, and flushed before exit.
    if (tracingWanted(process.env)) tracing = (await import('../runtime/tracing.js')).startTracing();
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    process.stderr.write(`${pc.red('herald:')} ${await describeError(err)}\n`);
    process.exitCode = EXIT.error;
  } finally {
    await tracing?.shutdown();
  }
}
