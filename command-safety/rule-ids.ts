/**
 * Every rule id the gate can report, registered: the table's rows (table/) and the ids the engine
 * and the TypeScript rules still report. "Always allow this rule" approvals are stored by these ids;
 * a test fails when a reported, stored or documented id is not registered, so renaming a rule
 * cannot silently drop the approvals that named it (list the old name in RENAMED_RULES instead).
 */
import { RULE_TABLE } from './table/index.js';

/** Ids reported by code rather than by a table row (the engine, named checks, rule files not yet rows). */
export const CODE_RULE_IDS: readonly string[] = [
  'at_job',
  'cloud_change',
  'cloud_delete',
  'cloud_grant',
  'cloud_upload',
  'code_in_environment',
  'command_rebind',
  'config_apply',
  'credential_read',
  'credential_search',
  'credential_upload',
  'cron',
  'crontab_remove',
  'data_in_url',
  'decoded_to_shell',
  'delete_outside',
  'delete_root',
  'delete_sensitive',
  'deploy_task',
  'destructive_option',
  'destructive_verb',
  'dev_tcp',
  'device_permissions',
  'device_write',
  'disk_change',
  'dns_exfiltration',
  'dynamic_arguments',
  'dynamic_command',
  'dynamic_script',
  'dynamic_subcommand',
  'env_to_network',
  'environment_send',
  'evaluated_variable',
  'exec_new_file',
  'exported_function',
  'file_upload',
  'foreign_shell',
  'fork_bomb',
  'git_dir_move',
  'git_hook_write',
  'http_delete',
  'inline_interpreter',
  'install_hook_write',
  'mass_delete',
  'mass_move',
  'mass_truncate',
  'move_outside',
  'move_sensitive',
  'nested_too_deep',
  'obfuscated_command',
  'path_hijack',
  'pipe_to_shell',
  'privileged_container',
  'proc_environ',
  'process_memory',
  'publish_tool',
  'publish_verb',
  'raw_device_write',
  'recursive_delete',
  'recursive_permissions',
  'redis_wipe',
  'remote_command',
  'reverse_shell',
  'root_shell',
  'runs_directory',
  'scale_to_zero',
  'search_path',
  'secret_to_network',
  'serve_files',
  'shell_escape',
  'shell_startup_file',
  'shred',
  'sql_file',
  'stdin_script',
  'subscript_code',
  'sudo_stdin',
  'sync_delete',
  'system_permissions',
  'too_long',
  'unparseable',
  'upload_dynamic',
  'upload_output',
  'upload_outside',
  'world_writable',
  'write_outside',
];

/** Old id → the id that replaced it: a stored approval of the old id covers the new one. */
export const RENAMED_RULES: Readonly<Record<string, string>> = {};

let registered: Set<string> | undefined;

export function registeredRuleIds(): ReadonlySet<string> {
  registered ??= new Set([...CODE_RULE_IDS, ...RULE_TABLE.rows.map((r) => r.id)]);
  return registered;
}

export function isRegisteredRule(id: string): boolean {
  return registeredRuleIds().has(id);
}

/** A stored rule id as the gate reports it today (renamed ids followed), or undefined when nothing registers it. */
export function currentRuleId(id: string): string | undefined {
  const now = RENAMED_RULES[id] ?? id;
  return isRegisteredRule(now) ? now : undefined;
}
