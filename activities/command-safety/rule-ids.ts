/**
 * Every rule id the gate can report, registered: the table's rows (table/) and the ids the engine
 * and the TypeScript rules still report. "Always allow this rule" approvals are stored by these ids;
 * a test fails when a reported, stored or documented id is not registered, so renaming a rule
 * cannot silently drop the approvals that named it (list the old name in RENAMED_RULES instead).
 */
import { RULE_TABLE } from './table/index.js';

/** Ids reported by code rather than by a table row (the engine, named checks, rule files not yet rows). */
export const CODE_RULE_IDS: readonly string[] = [
  'alternate_program', 'archive_delete', 'at_job', 'backup_home', 'boot_firmware', 'cdk_destroy', 'clock',
  'cloud_change', 'cloud_credentials', 'cloud_delete', 'cloud_grant', 'cloud_upload', 'cluster_change',
  'cluster_cronjob', 'cluster_delete', 'cluster_grant', 'cluster_rollout', 'cluster_scale_zero',
  'code_in_environment', 'command_rebind', 'compress_tree', 'config_apply', 'container_delete',
  'credential_commit', 'credential_read', 'credential_search', 'credential_upload', 'credential_write',
  'cron', 'crontab_remove', 'data_in_url', 'decoded_to_shell', 'delete_outside', 'delete_root',
  'delete_sensitive', 'deploy', 'deploy_push', 'deploy_task', 'destructive_option', 'destructive_verb',
  'dev_tcp', 'device_permissions', 'device_write', 'direnv_allow', 'disk_change', 'disk_copy',
  'dns_exfiltration', 'dynamic_arguments', 'dynamic_command', 'dynamic_option', 'dynamic_script',
  'dynamic_sql', 'dynamic_subcommand', 'encrypt_in_place', 'env_to_network', 'environment_send',
  'evaluated_variable', 'exec_new_file', 'exported_function', 'exposed_service', 'ext_transport',
  'extract_outside', 'file_upload', 'firewall', 'force_kill', 'foreign_shell', 'forge_api_write',
  'forge_release_delete', 'forge_repo_delete', 'fork_bomb', 'gist_create', 'git_branch_delete', 'git_clean',
  'git_config_system', 'git_dir_move', 'git_discard', 'git_exec_config', 'git_force_config',
  'git_force_push', 'git_hook_install', 'git_hook_write', 'git_prune', 'git_ref_write', 'git_reflog_expire',
  'git_remote_delete', 'git_reset_hard', 'git_rewrite', 'git_rm_recursive', 'git_send_email',
  'git_stash_drop', 'git_trust_config', 'helm_uninstall', 'history_clear', 'http_delete', 'image_push',
  'inline_interpreter', 'install_hook_write', 'install_outside', 'kernel_module', 'kernel_setting',
  'kill_all', 'kill_init', 'kill_many', 'kubeconfig_exec', 'lifecycle_script', 'loads_library', 'login_hook',
  'mass_delete', 'mass_move', 'mass_truncate', 'merge_request', 'mkfs', 'mongo_wipe', 'mount',
  'move_outside', 'move_sensitive', 'nested_too_deep', 'network_config', 'obfuscated_command', 'orm_reset',
  'package_install', 'package_publish', 'package_remove', 'package_source', 'path_hijack', 'pipe_to_shell',
  'power_state', 'privileged_container', 'proc_environ', 'process_memory', 'publish_tool', 'publish_verb',
  'pulumi_destroy', 'punch_hole', 'push_to_new_remote', 'push_to_url', 'raw_device_write', 'raw_socket',
  'recursive_delete', 'recursive_permissions', 'redis_script', 'redis_wipe', 'release_publish',
  'remote_command', 'remote_display', 'rename_overwrite', 'repo_public', 'resource_exhaustion',
  'restart_always', 'restore_over', 'reverse_shell', 'reverse_tunnel', 'root_package_install', 'root_shell',
  'runs_directory', 'scale_to_zero', 'script_file', 'search_path', 'secret_to_network', 'security_switch',
  'serve_files', 'service_enable', 'service_stop', 'setuid', 'shell_escape', 'shell_startup_file', 'shred',
  'shutdown', 'sql_destructive', 'sql_file', 'ssh_key_install', 'startup_file_write', 'stdin_script',
  'subscript_code', 'sudo_stdin', 'sync_delete', 'system_change', 'system_ownership', 'system_permissions',
  'terraform_apply', 'terraform_apply_unreviewed', 'terraform_destroy', 'terraform_state', 'too_long',
  'transient_service', 'truncate_outside', 'trust_store', 'tunnel', 'unparseable', 'upload_dynamic',
  'upload_output', 'upload_outside', 'users', 'vcs_discard', 'volume_remove', 'workflow_run',
  'world_writable', 'write_outside',
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
