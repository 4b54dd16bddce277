/**
 * Vocabulary shared by the rule files: secret files and variables, network commands, places
 * outside the machine, and hosts a secret may legitimately go to. Sources are regex fragments on
 * normalised (lower-case) text.
 */

// --- secret files --------------------------------------------------------------------------------

/** A home directory or path prefix, in the shells and languages people write commands in. */
export const HOME = String.raw`(?:(?:~|\$home|\$\{home\}|\$env:userprofile|\$env:home|\$env:appdata|%userprofile%|%appdata%|\$\(?(?:os\.)?homedir\(?\)?|/root|/home/[\w.-]+|/users/[\w.-]+|c:\\users\\[\w.-]+|\.\.?)?[/\\])?`;

/**
 * Files whose contents are secrets: private keys (anything in ~/.ssh that is not public, a
 * config or a host list), cloud and registry credentials, shell histories, process environments,
 * browser password stores, mounted service-account tokens.
 */
const SECRET_PATHS = [
  String.raw`\.ssh[/\\](?!config\b|known_hosts|authorized_keys|environment\b|rc\b|[\w.-]*\.pub\b|\*\.pub)[\w.*-]+`,
  String.raw`\.ssh[/\\]?(?=[\s"'\x60)]|$)`,
  String.raw`(?<![\w.-])id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?![\w.-]*\.pub)\b`,
  String.raw`\.aws[/\\]credentials\b`,
  String.raw`\.aws[/\\]?(?=[\s"'\x60)]|$)`,
  String.raw`[._]netrc\b`,
  String.raw`\.pgpass\b`,
  String.raw`\.git-credentials\b`,
  String.raw`\.docker[/\\]config\.json`,
  String.raw`\.kube[/\\]config\b`,
  String.raw`(?:\.config[/\\]|github cli[/\\])?gh[/\\]hosts\.ya?ml`,
  String.raw`github cli[/\\]hosts\.ya?ml`,
  String.raw`\.config[/\\]gcloud[/\\][\w.-]+`,
  String.raw`application_default_credentials\.json`,
  String.raw`\.npmrc\b`,
  String.raw`\.pypirc\b`,
  String.raw`\.gnupg\b`,
  String.raw`/etc/g?shadow\b`,
  String.raw`/etc/sudoers\b`,
  String.raw`\.(?:bash|zsh|psql|mysql|python|node_repl|sh|fish)_history\b`,
  String.raw`/proc/(?:self|\d+|\*|\$\$|\$\w+)/environ\b`,
  String.raw`\.(?:hermes|herald)[/\\]\.env`,
  String.raw`service[-_]account[\w.-]*\.json`,
  String.raw`\.vault-token\b`,
  String.raw`\.terraform\.d[/\\]credentials\.tfrc\.json`,
  String.raw`\.azure[/\\][\w.-]*(?:token|credential|msal|accessTokens)[\w.-]*`,
  String.raw`/etc/ssl/private\b(?:[/\\][\w.-]+)?`,
  String.raw`/(?:var/)?run/secrets/[\w./-]+`,
  String.raw`keyrings?[/\\][\w.-]+\.keyring`,
  String.raw`login(?:\\?\s|_)data\b`,
  String.raw`(?:cookies|logins|key[34])\.(?:sqlite|json|db)\b`,
  String.raw`\.(?:config[/\\])?op[/\\]config\b`,
  String.raw`\.cargo[/\\]credentials(?:\.toml)?`,
  String.raw`\.gem[/\\]credentials\b`,
  String.raw`\.m2[/\\]settings-security\.xml`,
  String.raw`\.boto\b`,
  String.raw`\.s3cfg\b`,
  String.raw`\.composer[/\\]auth\.json`,
  String.raw`rclone[/\\]rclone\.conf`,
  String.raw`(?<![\w.-])(?:config[/\\])?master\.key\b`,
  String.raw`(?<![\w.-])[\w-]*(?:private|priv|server|tls|ssl|signing|secret)[\w-]*\.(?:key|pem)\b`,
  String.raw`169\.254\.169\.254[^\s"'\x60]*(?:credentials|token|identity)[^\s"'\x60]*`,
  String.raw`metadata\.google\.internal[^\s"'\x60]*token`,
];
/** Directories between the home and the secret (`~/.local/share/keyrings/…`, `Application\ Support/…`). */
const SUBDIRS = String.raw`(?:[\w.-]+(?:\\\x20[\w.-]+)*[/\\]){0,8}`;
/** Starts at the start of a path token (a lookbehind here keeps every rule that embeds it fast). */
export const SECRET_FILE_HIGH = String.raw`(?<![\w.-])${HOME}${SUBDIRS}(?:${SECRET_PATHS.join('|')})`;
export const DOT_ENV = String.raw`(?<![\w.-])\.env(?:\.(?:local|prod|production|dev|development|staging|test|ci|secret|secrets))*(?![\w.-])`;
export const SECRET_FILE = String.raw`(?:${SECRET_FILE_HIGH}|(?<![\w.-])${HOME}${DOT_ENV})`;
export const EXFIL_FILE = String.raw`(?:${SECRET_FILE}|/etc/passwd\b)`;

// --- secret variables --------------------------------------------------------------------------

const SECRETISH = String.raw`\w*?(?:key|token|secret|password|passwd|pwd|credentials?|cookie|database_url|db_url)`;
/** `$OPENAI_API_KEY`, `${GH_TOKEN}`, `${{ secrets.NPM_TOKEN }}`, `$env:GITHUB_TOKEN`, `%API_KEY%`. */
export const SECRET_VAR = String.raw`(?:\$\{\{ ?secrets\.(\w+) ?\}\}|\$env:(${SECRETISH})\b|%(${SECRETISH})%|\$\{?(${SECRETISH})\}?(?!\w))`;
/** A secret read from the environment in code: `process.env.NPM_TOKEN`, `os.environ["AWS_SECRET_ACCESS_KEY"]`. */
export const CODE_SECRET_ENV = String.raw`(?:process\.env\.(${SECRETISH})\b|process\.env\[["'\x60](${SECRETISH})["'\x60]\]|os\.environ\[["'](${SECRETISH})["']\]|os\.(?:environ\.get|getenv)\(["'](${SECRETISH})["']|getenv\(["'](${SECRETISH})["']\))`;
/** The whole environment, in code. */
export const CODE_WHOLE_ENV = String.raw`(?:json\.stringify\(process\.env\)|process\.env(?![.\[\w])|(?:dict|str|repr)\(os\.environ\)|os\.environ\.copy\(\)|os\.environ(?![.\[\w])|get-childitem env:|gci env:|dir env:)`;
/** A secret named in prose: OPENAI_API_KEY, GITHUB_TOKEN, SESSION_SECRET, DATABASE_URL. */
export const SECRET_NAME = String.raw`(?:\b(?!public_|primary_|foreign_|sort_|cache_|idempotency_|partition_)[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:api_key|key|token|secret|secret_key|password|passwd|pwd|credentials|access_key|private_key)\b|\b(?:database_url|db_url|db_password|database_password)\b)`;

/** Secrets in prose. */
export const SECRET_NOUN = String.raw`(?:api[\s_-]?keys?|(?:access|secret|private|ssh|deploy|signing|gpg|pgp) keys?|(?:access|auth(?:entication)?|bearer|session|refresh|github|gh|openai|npm|slack|api|oauth|personal access) tokens?|tokens|credentials|secrets|passwords?|passphrases?|session cookies?|(?:auth )?cookies|env(?:ironment)? (?:vars?|variables)|\.env(?: file)?|aws credentials|(?:openai|anthropic|github|aws|stripe|gcp|azure) (?:api )?(?:keys?|tokens?|secrets?)|seed phrases?|wallet keys?|saved logins|saved passwords|card details|keys)`;

// --- the network ----------------------------------------------------------------------------------

/** Commands that talk to the network. HTTPie's `http`/`https` only with a method or flag (every URL starts with `https`). */
export const NET = String.raw`(?:curl|wget|nc|ncat|netcat|socat|telnet|scp|rsync|sftp|ftp|xh|httpie|https? (?:get|post|put|patch|delete|-{1,2}\w+)|invoke-webrequest|invoke-restmethod|iwr|irm|aria2c|fetch|gh gist create|gh (?:issue|pr) (?:comment|create)|aws s3 (?:cp|mv|sync)|gsutil (?:cp|mv|rsync)|az storage blob upload|rclone (?:copy|sync|move|copyto)|mail|sendmail|mutt|swaks|openssl s_client|requests\.(?:post|put|get|patch)|httpx\.(?:post|put|get|patch)|urllib\.request\.\w+|urlopen|axios(?:\.(?:post|put|get))?|socket\.create_connection|navigator\.sendbeacon|xmlhttprequest|https?\.(?:get|request)|require\(["']https?["']\)\.(?:get|request))`;
/** What a pipe may end in to send its input off the machine. */
export const NET_SINK = String.raw`(?:(?:sudo )?(?:curl|wget|nc|ncat|netcat|socat|telnet|openssl s_client|xh|mail|sendmail|mutt|ssh)\b|https? (?:post|put)\b|gh (?:issue|pr) (?:comment|create)\b|gh gist create\b|aws s3 cp\b|> ?/dev/(?:tcp|udp)/)`;

/** Top-level domains that end a host name (so `config.example.yaml` is not read as a host). */
export const TLD = String.raw`(?:com|net|org|io|ai|app|dev|co|me|sh|cc|pw|xyz|ru|cn|site|online|top|info|biz|tk|ml|ga|gq|cf|link|click|cloud|live|fun|run|shop|store|tech|center|support|services?|email|uk|de|fr|it|nl|pl|br|tr|in|id|vn|th|ir|il|ua|jp|kr|es|pt|us|ca|au|ch|se|no|fi|dk|cz|gr|hu|ro|sk|tv|ws|st|rs|is|to|gg|ly|so|su|am|fm|lol|icu|page|host|digital|tools|systems|network|zone|space|website|works|team|today|world|global|media|news|one)`;
export const HOST = String.raw`[\w-]+(?:\.[\w-]+)*\.${TLD}(?![\w-])`;

/** Places outside the machine, in prose. */
export const OUTSIDE = String.raw`(?:https?:|ftp:|www\.|(?:the|this|my|our|that|a|an) (?:following |external |remote |public |incident |support |shared |image |tracking |callback )?(?:endpoint|webhook|server|address|url|link|email|inbox|pastebin|gist|channel|form|bucket|chat|slack|discord)|(?:a |an )?(?:webhook|pastebin|gist|discord|telegram|remote server|external server|attacker)|${HOST}|\S+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}|(?:an? |the )?(?:markdown )?image(?: url)?|(?:an? |the )?(?:new |public |secret )?(?:issue|gist|discussion|pull request|paste|comment)(?: #?\d+)?|transfer\.sh|0x0\.st|file\.io|webhook\.site|requestbin|pipedream|ngrok|requestcatcher|oastify|burpcollaborator|interact\.sh|oast\.\w+|(?:the )?query string|(?:the )?public (?:docs |build )?(?:branch|log|repo|repository|page))`;

/** Places a secret may legitimately be sent or added (the code host, the vendor, the secret store). */
export const SAFE_DESTINATION =
  /(?:github\.com\/settings|gitlab\.com\/-\/profile|1password|bitwarden|\bvault\b|keychain|secrets? manager|secret store|\.env\b|localhost|127\.0\.0\.1|\.example\b|example\.(?:com|org|net)|(?:the |your )?(?:password manager|ci secrets?|repository secrets?))/;

/** Hosts on this machine or reserved for documentation: a secret sent there leaves nothing. */
export const BENIGN_HOST =
  /^(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1\]|(?:[\w-]+\.)*example(?:\.(?:com|org|net))?|(?:[\w-]+\.)*(?:test|invalid|localhost)|[\w.-]+\.local|host\.docker\.internal)$/;
