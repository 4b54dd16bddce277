/**
 * Publishing to the world (publish): package registries, container registries, extension
 * marketplaces and production deploys. Once out, none of it can be taken back. Subcommand paths
 * may start after two words (values of global options), as those tools accept them.
 */
import type { RowInput } from '../schema.js';

export const PUBLISH_ROWS: RowInput[] = [
  {
    id: 'package_publish',
    group: 'publish',
    reason: 'publishes or withdraws a package (an abbreviation of publish)',
    when: [
      {
        program: ['npm', 'pnpm', 'cnpm'],
        subcommand: [['/^(pub|publ|publi|unpub|unpubl|unpubli|unpublis|depr|depre|deprec|depreca|deprecat)$/']],
        skip: 2,
      },
      {
        program: ['npm', 'pnpm', 'yarn', 'bun', 'cnpm'],
        subcommand: [['/^(publish|unpublish|deprecate)$/']],
        skip: 2,
        reason: 'publishes or withdraws a package on the registry',
      },
      {
        program: ['npm', 'pnpm', 'yarn'],
        subcommand: [['dist-tag'], ['/^(add|rm|remove)$/']],
        skip: 2,
        reason: 'moves a published dist-tag',
      },
      {
        program: ['npm', 'pnpm', 'yarn'],
        subcommand: [['owner'], ['/^(add|rm|remove)$/']],
        skip: 2,
        reason: 'changes package owners',
      },
      {
        program: ['npm'],
        subcommand: [['access']],
        skip: 2,
        reason: 'changes package access',
      },
      {
        program: ['yarn'],
        subcommand: [['npm'], ['publish']],
        skip: 2,
        reason: 'publishes a package',
      },
      {
        program: ['twine'],
        subcommand: [['upload']],
        skip: 2,
        reason: 'uploads a package to PyPI',
      },
      {
        program: ['poetry', 'flit', 'hatch', 'uv', 'pdm', 'rye'],
        subcommand: [['publish']],
        skip: 2,
        reason: 'publishes a package to PyPI',
      },
      {
        program: ['cargo'],
        subcommand: [['/^(publish|yank|owner)$/']],
        skip: 2,
        reason: 'publishes or yanks a crate',
      },
      {
        program: ['gem'],
        subcommand: [['/^(push|yank|owner)$/']],
        skip: 2,
        reason: 'publishes or yanks a gem',
      },
      {
        program: ['dotnet'],
        subcommand: [['nuget'], ['push']],
        skip: 2,
        reason: 'publishes a NuGet package',
      },
      {
        program: ['nuget'],
        subcommand: [['push']],
        skip: 2,
        reason: 'publishes a NuGet package',
      },
      {
        program: ['mvn', 'mvnw', './mvnw'],
        subcommand: [['/^(deploy|release:perform|release:prepare)$/']],
        skip: 2,
        reason: 'deploys Maven artifacts',
      },
      {
        program: ['gradle', 'gradlew'],
        subcommand: [['/^publish|^:?\\w*:?publish/']],
        skip: 2,
        reason: 'publishes Gradle artifacts',
      },
      {
        program: ['pod'],
        subcommand: [['trunk'], ['push']],
        skip: 2,
        reason: 'publishes a CocoaPod',
      },
      {
        program: ['pod'],
        subcommand: [['repo'], ['push']],
        skip: 2,
        reason: 'publishes a podspec to a spec repo',
      },
      {
        program: ['cargo'],
        subcommand: [['/^release$/']],
        skip: 2,
        flags: {
          short: 'x',
          long: ['--execute'],
        },
        reason: 'cargo release --execute tags, pushes and publishes',
      },
      {
        program: ['mix'],
        subcommand: [['/^hex\\.(publish|retire)$/']],
        skip: 2,
        reason: 'publishes to Hex',
      },
      {
        program: ['jsr', 'deno'],
        subcommand: [['publish']],
        skip: 2,
        reason: 'publishes to JSR',
      },
      {
        program: ['dart', 'flutter'],
        subcommand: [['pub'], ['publish']],
        skip: 2,
        reason: 'publishes to pub.dev',
      },
      {
        program: ['conda', 'anaconda'],
        subcommand: [['upload']],
        skip: 2,
        reason: 'uploads a conda package',
      },
      {
        program: ['lerna', 'changeset', 'changesets'],
        subcommand: [['publish']],
        skip: 2,
        reason: 'publishes packages',
      },
      {
        program: ['np', 'semantic-release', 'release-it'],
        reason: 'publishes a release',
      },
      {
        program: ['goreleaser'],
        subcommand: [['release']],
        skip: 2,
        reason: 'publishes a release',
      },
      {
        program: ['vsce', 'ovsx'],
        subcommand: [['/^(publish|unpublish)$/']],
        skip: 2,
        reason: 'publishes an editor extension',
      },
    ],
    match: [
      'npm publish',
      'npm pub',
      'twine upload dist/*',
      'cargo publish',
      'gem push x.gem',
      'mvn deploy',
      'yarn npm publish',
    ],
    notMatch: ['npm pack', 'cargo build', 'gem list'],
  },
  {
    id: 'image_push',
    group: 'publish',
    reason: 'pushes an image to a registry',
    when: [
      {
        program: ['buildah'],
        subcommand: [['push']],
        skip: 2,
      },
      {
        program: ['gradle', 'gradlew'],
        subcommand: [['/^:?(\\w+:)*jib$/']],
        skip: 2,
        reason: 'jib builds and pushes an image to a registry',
      },
      {
        program: ['docker', 'podman', 'nerdctl'],
        subcommand: [['push']],
        skip: 2,
      },
      {
        program: ['docker', 'podman', 'nerdctl'],
        subcommand: [['/^(image|manifest)$/'], ['push']],
        skip: 2,
      },
      {
        program: ['docker'],
        subcommand: [['buildx'], ['/^(build|bake)$/']],
        skip: 2,
        flags: {
          long: ['--push'],
        },
        reason: 'builds and pushes an image',
      },
      {
        program: ['docker', 'podman'],
        subcommand: [['build']],
        skip: 2,
        flags: {
          long: ['--push'],
        },
        reason: 'builds and pushes an image',
      },
      {
        program: ['skopeo'],
        subcommand: [['/^(copy|sync)$/']],
        skip: 2,
        word: ['/^docker:\\/\\//'],
        reason: 'copies an image to a registry',
      },
      {
        program: ['crane'],
        subcommand: [['/^(push|copy|cp|tag|append|mutate)$/']],
        skip: 2,
        reason: 'writes an image to a registry',
      },
      {
        program: ['oras'],
        subcommand: [['push']],
        skip: 2,
        reason: 'pushes an artifact',
      },
      {
        program: ['helm'],
        subcommand: [['/^(push|cm-push)$/']],
        skip: 2,
        reason: 'pushes a chart',
      },
    ],
    match: ['docker push ghcr.io/a/b', 'docker buildx build --push .', 'helm push chart.tgz oci://x'],
    notMatch: ['docker build .', 'docker pull x'],
  },
  {
    id: 'deploy',
    group: 'publish',
    reason: 'ships an app update or store submission',
    when: [
      {
        program: ['eas'],
        subcommand: [['/^(update|submit|build)$/']],
        skip: 2,
        word: ['/prod|--auto-submit|submit|--latest/'],
      },
      {
        program: ['eas'],
        subcommand: [['update', 'submit']],
        skip: 2,
      },
      {
        program: ['fastlane'],
        subcommand: [
          ['/^(deliver|supply|pilot|upload_to_app_store|upload_to_play_store|release|beta|appstore|playstore)$/'],
        ],
        skip: 2,
        reason: 'uploads an app to a store',
      },
      {
        program: ['firebase'],
        subcommand: [['deploy']],
        skip: 2,
        reason: 'deploys to Firebase',
      },
      {
        program: ['vercel'],
        flags: {
          long: ['--prod', '--production'],
        },
        reason: 'deploys to production',
      },
      {
        program: ['vercel'],
        word: ['/^--prod=true$/'],
        reason: 'deploys to production',
      },
      {
        program: ['vercel'],
        subcommand: [['/^(promote|alias)$/']],
        skip: 2,
        reason: 'promotes a deployment',
      },
      {
        program: ['netlify'],
        subcommand: [['deploy']],
        skip: 2,
        flags: {
          long: ['--prod', '--production'],
        },
        reason: 'deploys to production',
      },
      {
        program: ['netlify'],
        subcommand: [['deploy']],
        skip: 2,
        word: ['/^--prod=true$/'],
        reason: 'deploys to production',
      },
      {
        program: ['wrangler'],
        subcommand: [['/^(deploy|publish)$/']],
        skip: 2,
        reason: 'deploys a Cloudflare worker',
      },
      {
        program: ['wrangler'],
        subcommand: [['pages'], ['/^(deploy|publish)$/']],
        skip: 2,
        reason: 'deploys Cloudflare pages',
      },
      {
        program: ['fly', 'flyctl'],
        subcommand: [['deploy']],
        skip: 2,
        reason: 'deploys to Fly',
      },
      {
        program: ['serverless', 'sls', 'sam', 'cdk', 'cdktf', 'kamal', 'copilot'],
        subcommand: [['deploy']],
        skip: 2,
        reason: 'deploys to the cloud',
      },
      {
        program: ['gcloud'],
        subcommand: [['/^(app|run|functions)$/'], ['deploy']],
        skip: 2,
        reason: 'deploys to Google Cloud',
      },
      {
        program: ['gcloud'],
        subcommand: [['run'], ['services'], ['/^(update|replace)$/']],
        skip: 2,
        reason: 'updates a running service',
      },
      {
        program: ['heroku'],
        subcommand: [['/^container:(push|release)$|^releases:rollback$/']],
        skip: 2,
        reason: 'releases to Heroku',
      },
      {
        program: ['pulumi'],
        subcommand: [['up']],
        skip: 2,
        word: ['/^(-y|--yes|--skip-preview|-f)$/'],
        reason: 'deploys infrastructure without review',
      },
      {
        program: ['railway'],
        subcommand: [['/^(up|deploy)$/']],
        skip: 2,
        reason: 'deploys to Railway',
      },
      {
        program: ['eb'],
        subcommand: [['deploy']],
        skip: 2,
        reason: 'deploys to Elastic Beanstalk',
      },
      {
        program: ['az'],
        subcommand: [['/^(webapp|functionapp)$/'], ['/^(deploy|up)$/']],
        skip: 2,
        reason: 'deploys to Azure',
      },
      {
        program: ['ansible-playbook'],
        word: ['/prod/'],
        reason: 'runs a playbook against production',
      },
    ],
    match: ['vercel --prod', 'netlify deploy --prod', 'firebase deploy', 'fly deploy', 'gcloud run deploy svc'],
    notMatch: ['vercel', 'netlify deploy', 'fly status'],
  },
];
