/** `herald doctor`, `herald check-command` and `herald scan-text`: checks that need no conversation. */
import type { Command } from 'commander';
import { EXIT, config, print } from './shared.js';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check Temporal, Postgres, the providers, the tool sandbox and disk space on this machine')
    .option('--offline', 'do not call the providers (only check that their keys are set)')
    .option('--json', 'print JSON')
    .option('--fix', 'create what is missing and can be made here (the herald-sandbox account, as root)')
    .action(async (o: { offline?: boolean; json?: boolean; fix?: boolean }) => {
      const { renderChecks, runDoctor } = await import('../doctor.js');
      const checks = await runDoctor(config(), { offline: Boolean(o.offline), fix: Boolean(o.fix) });
      print(Boolean(o.json), checks, renderChecks(checks));
      if (checks.some((c) => c.status === 'fail')) process.exitCode = EXIT.error;
    });
}

export function registerCheckCommand(program: Command): void {
  program
    .command('check-command')
    .description('classify a shell command as the approval gate would: safe, dangerous or hardline, and why')
    .argument('[command...]', "the command (after --, so its options are not read as herald's); none: read stdin")
    .option('--json', 'print JSON')
    .option('--jsonl', 'read one JSON string per stdin line, write one JSON object per line')
    .option('--list-rules', "print the gate's rule table")
    .option('--explain', 'show which rule fired on which words')
    .action(async (words: string[], o: { json?: boolean; jsonl?: boolean; listRules?: boolean; explain?: boolean }) => {
      const { checkCommandReport, jsonLines, readStdin, renderCommandReport } = await import('../safety-commands.js');
      if (o.listRules || o.explain)
        return await (await import('../rule-table-command.js')).ruleTableAction(words, o, print);
      if (o.jsonl) return await jsonLines(checkCommandReport);
      const command = words.length ? words.join(' ') : (await readStdin()).replace(/\n$/, '');
      const report = await checkCommandReport(command);
      print(Boolean(o.json), report, renderCommandReport(command, report));
    });
}

export function registerScanText(program: Command): void {
  program
    .command('scan-text')
    .description('scan text for prompt injection as Herald does for context files, memory and tool results')
    .argument('[text...]', 'the text; none: read stdin')
    .option('--json', 'print JSON')
    .option('--jsonl', 'read one JSON string per stdin line, write one JSON object per line')
    .action(async (words: string[], o: { json?: boolean; jsonl?: boolean }) => {
      const { jsonLines, readStdin, renderScanReport, loadScanTextReport } = await import('../safety-commands.js');
      const scanTextReport = await loadScanTextReport();
      if (o.jsonl) return await jsonLines(scanTextReport);
      const report = scanTextReport(words.length ? words.join(' ') : await readStdin());
      print(Boolean(o.json), report, renderScanReport(report));
    });
}
