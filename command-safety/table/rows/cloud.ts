/**
 * Heroku and Fly config and secret writes, and the AWS CLI (destroy_infrastructure, persist,
 * publish), whose operation names are verb-first, so
 * anything but a read is a change; grants and access keys persist access, `aws configure set` of
 * a key that runs a program or swaps credentials persists, and writes into a bucket publish.
 * Secret reads are credential_read rows (exposure.ts); deletes are rows of infrastructure.ts.
 */
import type { RowInput } from '../schema.js';

/** Operations that only read. */
const READ =
  'describe|list|get|filter|lookup|search|batch-get|scan|query|select|head|tail|wait|help|validate|estimate|preview|simulate|test|check|view|show|download|detect|decode|generate-presigned|presign|ls|summarize|poll|receive|verify|can-paginate';

/** Operations that print secrets or credentials (credential_read). */
export const AWS_SECRET_OPS =
  'get-parameters-by-path|get-secret-value|batch-get-secret-value|decrypt|get-session-token|get-federation-token|assume-role\\S*';

/** Operations that delete or stop (infrastructure.ts reports them). */
const DELETE_VERB =
  '(^|[-_:])(delete|deletion|destroy|terminate|remove|purge|rm|rb|drop|deregister|release|detach|disassociate|revoke|wipe|erase|reset|stop|disable|uninstall|kill|evict|cancel|abandon|unregister|undefine|down|shutdown|decommission|retire|deallocate|seal|step-down)([-_:]|$)';

/** Operations that hand out or widen access: persistent credentials and policy grants. */
const GRANT =
  'create-access-key|create-login-profile|update-login-profile|attach-(user|role|group)-policy|put-(user|role|group)-policy|add-user-to-group|update-assume-role-policy|create-policy-version|set-default-policy-version|create-service-specific-credential|upload-ssh-public-key|upload-signing-certificate|create-user|create-role|put-bucket-policy|put-bucket-acl|put-object-acl|add-permission|put-key-policy|create-grant|modify-image-attribute|modify-snapshot-attribute|authorize-\\w+|put-resource-policy|create-open-id-connect-provider|create-saml-provider';

/** Everyday operations that are not reads by name (`eks update-kubeconfig`, `cloudformation package`). */
const LOCAL_OPS = 'update-kubeconfig|start-live-tail|package|help';

export const NOT_A_PREVIEW = { long: ['--dry-run', '--dryrun', '--generate-cli-skeleton'] };

export const CLOUD_ROWS: RowInput[] = [
  {
    id: 'cloud_change',
    group: 'destroy_infrastructure',
    reason: 'aws {subcommand} changes real infrastructure',
    when: [
      {
        program: ['aws'],
        // s3 and configure have their own rows; sso and help only configure the CLI.
        subcommand: [
          ['/^(?!(s3|configure|sso|help)$)/'],
          [`/^(?!(${READ})(-|$))(?!.*${DELETE_VERB})(?!(${GRANT}|${AWS_SECRET_OPS}|${LOCAL_OPS})$)(?=.)/`],
        ],
        notFlags: NOT_A_PREVIEW,
      },
      {
        program: ['aws'],
        subcommand: [['s3'], ['mv']],
        word: ['/^s3:\\/\\//'],
        notFlags: NOT_A_PREVIEW,
        reason: 'aws s3 mv removes the objects it moves',
      },
      {
        program: ['heroku'],
        subcommand: [
          [
            '/^(config:(set|unset|add|remove)|maintenance:on|ps:(restart|resize|type)|features:(enable|disable)|addons:(create|destroy|detach|attach))$/',
          ],
        ],
        reason: 'heroku {subcommand} changes the app',
      },
      {
        program: ['fly', 'flyctl'],
        subcommand: [['secrets'], ['set', 'unset', 'import']],
        reason: '{program} {subcommand} changes the app (and restarts it)',
      },
    ],
    match: [
      'aws ec2 run-instances --image-id ami-1 --count 50',
      'aws --profile prod lambda update-function-code --function-name f --zip-file fileb://x.zip',
      'aws s3 mv s3://b/x ./x',
      'heroku config:set DEBUG=1 -a prod',
      'fly secrets set KEY=x',
    ],
    notMatch: [
      'aws ec2 describe-instances',
      'aws ec2 run-instances --dry-run --image-id ami-1',
      'aws eks update-kubeconfig --name prod',
      'aws configure list',
      'aws s3 cp s3://b/x ./x',
      'aws iam create-access-key --user-name me',
      'heroku logs --tail',
      'fly secrets list',
    ],
  },
  {
    id: 'cloud_grant',
    group: 'persist',
    reason: '{program} {subcommand} grants access',
    when: [
      { program: ['aws'], subcommand: [['*'], [`/^(${GRANT})$/`]], notFlags: NOT_A_PREVIEW },
      { program: ['gcloud'], word: ['/^(add-iam-policy-binding|set-iam-policy)$/'], reason: 'gcloud grants access' },
      {
        program: ['gcloud'],
        skip: 1,
        subcommand: [['iam'], ['roles', 'service-accounts'], ['create']],
        reason: 'gcloud iam {subcommand} grants access',
      },
      {
        program: ['gcloud'],
        skip: 1,
        subcommand: [['iam'], ['service-accounts'], ['keys'], ['create']],
        reason: 'gcloud creates a service-account key',
      },
      { program: ['az'], subcommand: [['role'], ['assignment', 'definition'], ['create']] },
      { program: ['az'], subcommand: [['ad'], ['sp', 'app'], ['credential'], ['reset']] },
      { program: ['az'], subcommand: [['ad'], ['sp'], ['create-for-rbac']] },
      { program: ['az'], subcommand: [['ad'], ['app', 'sp'], ['permission'], ['add', 'grant']] },
      { program: ['az'], subcommand: [['ad'], ['group'], ['member'], ['add']] },
      { program: ['az'], subcommand: [['keyvault'], ['set-policy']] },
      {
        program: ['gsutil'],
        subcommand: [
          ['iam', 'acl', 'defacl'],
          ['ch', 'set'],
        ],
        reason: 'gsutil {subcommand} grants access',
      },
    ],
    match: [
      'gsutil iam ch allUsers:objectViewer gs://acme-private',
      'gsutil acl ch -u AllUsers:R gs://b',
      'aws iam create-access-key --user-name me',
      'aws s3api put-bucket-policy --bucket b --policy file://p.json',
      'gcloud projects add-iam-policy-binding p --member user:x --role roles/owner',
      'gcloud iam service-accounts keys create key.json --iam-account sa@p.iam.gserviceaccount.com',
      'az role assignment create --assignee x --role Owner',
      'az ad sp create-for-rbac -n ci',
    ],
    notMatch: ['aws iam list-access-keys', 'gcloud iam roles list', 'az role assignment list', 'gsutil iam get gs://b'],
  },
  {
    id: 'cloud_credentials',
    group: 'persist',
    reason: 'aws configure set {word}: the CLI will use other credentials or run a program for them',
    when: [
      {
        program: ['aws'],
        subcommand: [
          ['configure'],
          ['set'],
          [
            '/^(credential_process|credential_source|role_arn|source_profile|ca_bundle|endpoint_url|sso_start_url|web_identity_token_file|aws_access_key_id|aws_secret_access_key|aws_session_token)$|\\.(credential_process|endpoint_url|ca_bundle)$/',
          ],
        ],
        notFlags: NOT_A_PREVIEW,
        reason: 'aws configure set: the CLI will use other credentials or run a program for them',
      },
    ],
    match: ['aws configure set credential_process /tmp/x', 'aws configure set profile.prod.endpoint_url http://x'],
    notMatch: ['aws configure set region eu-west-1', 'aws configure get region'],
  },
  {
    id: 'cloud_upload',
    group: 'publish',
    reason: 'aws s3 {subcommand} writes into a bucket',
    when: [
      { program: ['aws'], subcommand: [['s3'], ['cp', 'sync']], check: 'aws.s3Destination', notFlags: NOT_A_PREVIEW },
    ],
    match: ['aws s3 cp report.csv s3://b/report.csv', 'aws s3 sync ./site s3://b'],
    notMatch: ['aws s3 cp s3://b/x ./x', 'aws s3 ls s3://b'],
  },
];
