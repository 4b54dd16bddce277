/**
 * Publishing to the world (group publish): package registries (npm, PyPI, crates.io, RubyGems,
 * NuGet, Maven, Hex, pub, JSR), container registries, extension marketplaces, and production
 * deploys (Vercel, Netlify, Cloudflare, Fly, Firebase, App Engine, Cloud Run, CDK, SAM,
 * Serverless, Heroku). Once out, none of it can be taken back.
 */
import type { Invocation, Rule } from '../invocation.js';
import { hasOption } from '../options.js';
import type { VerbRule } from './verbs.js';
import { flag, subcommandWords, verbRules } from './verbs.js';

const P = 'publish' as const;
const prod = (inv: Invocation) =>
  hasOption(inv.args, { long: ['--prod', '--production'] }) || inv.args.some((w) => w.value === '--prod=true');

const TABLE: VerbRule[] = [
  {
    tools: ['npm', 'pnpm', 'cnpm'],
    path: [/^(pub|publ|publi|unpub|unpubl|unpubli|unpublis|depr|depre|deprec|depreca|deprecat)$/],
    group: P,
    rule: 'package_publish',
    reason: 'publishes or withdraws a package (an abbreviation of publish)',
  },
  { tools: ['buildah'], path: ['push'], group: P, rule: 'image_push', reason: 'pushes an image to a registry' },
  {
    tools: ['eas'],
    path: [/^(update|submit|build)$/],
    when: (inv) =>
      inv.args.some((w) => /prod|--auto-submit|submit|--latest/.test(w.value ?? '')) ||
      ['update', 'submit'].includes(subcommandWords(inv)[0] ?? ''),
    group: P,
    rule: 'deploy',
    reason: 'ships an app update or store submission',
  },
  {
    tools: ['fastlane'],
    path: [/^(deliver|supply|pilot|upload_to_app_store|upload_to_play_store|release|beta|appstore|playstore)$/],
    group: P,
    rule: 'deploy',
    reason: 'uploads an app to a store',
  },
  {
    tools: ['npm', 'pnpm', 'yarn', 'bun', 'cnpm'],
    path: [/^(publish|unpublish|deprecate)$/],
    group: P,
    rule: 'package_publish',
    reason: 'publishes or withdraws a package on the registry',
  },
  {
    tools: ['npm', 'pnpm', 'yarn'],
    path: ['dist-tag', /^(add|rm|remove)$/],
    group: P,
    rule: 'package_publish',
    reason: 'moves a published dist-tag',
  },
  {
    tools: ['npm', 'pnpm', 'yarn'],
    path: ['owner', /^(add|rm|remove)$/],
    group: P,
    rule: 'package_publish',
    reason: 'changes package owners',
  },
  { tools: ['npm'], path: ['access'], group: P, rule: 'package_publish', reason: 'changes package access' },
  { tools: ['yarn'], path: ['npm', 'publish'], group: P, rule: 'package_publish', reason: 'publishes a package' },
  { tools: ['twine'], path: ['upload'], group: P, rule: 'package_publish', reason: 'uploads a package to PyPI' },
  {
    tools: ['poetry', 'flit', 'hatch', 'uv', 'pdm', 'rye'],
    path: ['publish'],
    group: P,
    rule: 'package_publish',
    reason: 'publishes a package to PyPI',
  },
  {
    tools: ['cargo'],
    path: [/^(publish|yank|owner)$/],
    group: P,
    rule: 'package_publish',
    reason: 'publishes or yanks a crate',
  },
  {
    tools: ['gem'],
    path: [/^(push|yank|owner)$/],
    group: P,
    rule: 'package_publish',
    reason: 'publishes or yanks a gem',
  },
  {
    tools: ['dotnet'],
    path: ['nuget', 'push'],
    group: P,
    rule: 'package_publish',
    reason: 'publishes a NuGet package',
  },
  { tools: ['nuget'], path: ['push'], group: P, rule: 'package_publish', reason: 'publishes a NuGet package' },
  {
    tools: ['mvn', 'mvnw', './mvnw'],
    path: [/^(deploy|release:perform|release:prepare)$/],
    group: P,
    rule: 'package_publish',
    reason: 'deploys Maven artifacts',
  },
  {
    tools: ['gradle', 'gradlew'],
    path: [/^publish|^:?\w*:?publish/],
    group: P,
    rule: 'package_publish',
    reason: 'publishes Gradle artifacts',
  },
  { tools: ['pod'], path: ['trunk', 'push'], group: P, rule: 'package_publish', reason: 'publishes a CocoaPod' },
  {
    tools: ['pod'],
    path: ['repo', 'push'],
    group: P,
    rule: 'package_publish',
    reason: 'publishes a podspec to a spec repo',
  },
  {
    tools: ['cargo'],
    path: [/^release$/],
    when: flag('x', '--execute'),
    group: P,
    rule: 'package_publish',
    reason: 'cargo release --execute tags, pushes and publishes',
  },
  {
    tools: ['gradle', 'gradlew'],
    path: [/^:?(\w+:)*jib$/],
    group: P,
    rule: 'image_push',
    reason: 'jib builds and pushes an image to a registry',
  },
  { tools: ['mix'], path: [/^hex\.(publish|retire)$/], group: P, rule: 'package_publish', reason: 'publishes to Hex' },
  { tools: ['jsr', 'deno'], path: ['publish'], group: P, rule: 'package_publish', reason: 'publishes to JSR' },
  {
    tools: ['dart', 'flutter'],
    path: ['pub', 'publish'],
    group: P,
    rule: 'package_publish',
    reason: 'publishes to pub.dev',
  },
  {
    tools: ['conda', 'anaconda'],
    path: ['upload'],
    group: P,
    rule: 'package_publish',
    reason: 'uploads a conda package',
  },
  {
    tools: ['lerna', 'changeset', 'changesets'],
    path: ['publish'],
    group: P,
    rule: 'package_publish',
    reason: 'publishes packages',
  },
  {
    tools: ['np', 'semantic-release', 'release-it'],
    path: [],
    group: P,
    rule: 'package_publish',
    reason: 'publishes a release',
  },
  { tools: ['goreleaser'], path: ['release'], group: P, rule: 'package_publish', reason: 'publishes a release' },
  {
    tools: ['vsce', 'ovsx'],
    path: [/^(publish|unpublish)$/],
    group: P,
    rule: 'package_publish',
    reason: 'publishes an editor extension',
  },
  {
    tools: ['docker', 'podman', 'nerdctl'],
    path: ['push'],
    group: P,
    rule: 'image_push',
    reason: 'pushes an image to a registry',
  },
  {
    tools: ['docker', 'podman', 'nerdctl'],
    path: [/^(image|manifest)$/, 'push'],
    group: P,
    rule: 'image_push',
    reason: 'pushes an image to a registry',
  },
  {
    tools: ['docker'],
    path: ['buildx', /^(build|bake)$/],
    when: flag(undefined, '--push'),
    group: P,
    rule: 'image_push',
    reason: 'builds and pushes an image',
  },
  {
    tools: ['docker', 'podman'],
    path: ['build'],
    when: flag(undefined, '--push'),
    group: P,
    rule: 'image_push',
    reason: 'builds and pushes an image',
  },
  {
    tools: ['skopeo'],
    path: [/^(copy|sync)$/],
    when: (inv) => inv.args.slice(1).some((w) => /^docker:\/\//.test(w.value ?? '')),
    group: P,
    rule: 'image_push',
    reason: 'copies an image to a registry',
  },
  {
    tools: ['crane'],
    path: [/^(push|copy|cp|tag|append|mutate)$/],
    group: P,
    rule: 'image_push',
    reason: 'writes an image to a registry',
  },
  { tools: ['oras'], path: ['push'], group: P, rule: 'image_push', reason: 'pushes an artifact' },
  { tools: ['helm'], path: [/^(push|cm-push)$/], group: P, rule: 'image_push', reason: 'pushes a chart' },
  { tools: ['firebase'], path: ['deploy'], group: P, rule: 'deploy', reason: 'deploys to Firebase' },
  { tools: ['vercel'], path: [], when: prod, group: P, rule: 'deploy', reason: 'deploys to production' },
  { tools: ['vercel'], path: [/^(promote|alias)$/], group: P, rule: 'deploy', reason: 'promotes a deployment' },
  { tools: ['netlify'], path: ['deploy'], when: prod, group: P, rule: 'deploy', reason: 'deploys to production' },
  {
    tools: ['wrangler'],
    path: [/^(deploy|publish)$/],
    group: P,
    rule: 'deploy',
    reason: 'deploys a Cloudflare worker',
  },
  {
    tools: ['wrangler'],
    path: ['pages', /^(deploy|publish)$/],
    group: P,
    rule: 'deploy',
    reason: 'deploys Cloudflare pages',
  },
  { tools: ['fly', 'flyctl'], path: ['deploy'], group: P, rule: 'deploy', reason: 'deploys to Fly' },
  {
    tools: ['serverless', 'sls', 'sam', 'cdk', 'cdktf', 'kamal', 'copilot'],
    path: ['deploy'],
    group: P,
    rule: 'deploy',
    reason: 'deploys to the cloud',
  },
  {
    tools: ['gcloud'],
    path: [/^(app|run|functions)$/, 'deploy'],
    group: P,
    rule: 'deploy',
    reason: 'deploys to Google Cloud',
  },
  {
    tools: ['gcloud'],
    path: ['run', 'services', /^(update|replace)$/],
    group: P,
    rule: 'deploy',
    reason: 'updates a running service',
  },
  {
    tools: ['heroku'],
    path: [/^container:(push|release)$|^releases:rollback$/],
    group: P,
    rule: 'deploy',
    reason: 'releases to Heroku',
  },
  {
    tools: ['pulumi'],
    path: ['up'],
    when: (inv) => inv.args.some((w) => /^(-y|--yes|--skip-preview|-f)$/.test(w.value ?? '')),
    group: P,
    rule: 'deploy',
    reason: 'deploys infrastructure without review',
  },
  { tools: ['railway'], path: [/^(up|deploy)$/], group: P, rule: 'deploy', reason: 'deploys to Railway' },
  { tools: ['eb'], path: ['deploy'], group: P, rule: 'deploy', reason: 'deploys to Elastic Beanstalk' },
  {
    tools: ['az'],
    path: [/^(webapp|functionapp)$/, /^(deploy|up)$/],
    group: P,
    rule: 'deploy',
    reason: 'deploys to Azure',
  },
  {
    tools: ['ansible-playbook'],
    path: [],
    when: (inv) => inv.args.some((w) => /prod/.test(w.value ?? '')),
    group: P,
    rule: 'deploy',
    reason: 'runs a playbook against production',
  },
];

/** `python -m twine upload …`: a module that publishes; `python setup.py sdist upload`: distutils' upload. */
export function pythonModulePublishes(inv: Invocation): boolean {
  const a = inv.args.map((w) => w.value);
  const m = a.indexOf('-m');
  if (m >= 0 && /^(twine|flit|poetry|hatch)$/.test(a[m + 1] ?? '') && /^(upload|publish)$/.test(a[m + 2] ?? ''))
    return true;
  const setup = a.findIndex((v) => /(^|\/)setup\.py$/.test(v ?? ''));
  return setup >= 0 && a.slice(setup + 1).some((v) => v === 'upload' || v === 'register');
}

/**
 * `GOPROXY=proxy.golang.org go list -m example.com/x@v1.4.0`: the documented way to publish a Go
 * module version (the proxy fetches and keeps it for good).
 */
export const goPublish: Rule = (inv, ctx) => {
  const a = inv.args.map((w) => w.value ?? '');
  if (a[0] !== 'list' || !a.includes('-m') || !a.some((v) => /^[\w.-]+\.[a-z]{2,}\/\S+@v\d/.test(v))) return;
  const proxy = inv.env.find((e) => e.name === 'GOPROXY')?.value.value ?? '';
  if (/proxy\.golang\.org/.test(proxy))
    ctx.add(inv, {
      group: P,
      rule: 'package_publish',
      reason: 'asks the Go module proxy to fetch and keep a version (publishes it)',
    });
};

export { subcommandWords };

export const PUBLISH_RULES: Record<string, Rule> = { ...verbRules(TABLE), go: goPublish };
