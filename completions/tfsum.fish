# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_tfsum_global_optspecs
    string join \n q/quiet v/verbose h/help V/version
end

function __fish_tfsum_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_tfsum_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_tfsum_using_subcommand
    set -l cmd (__fish_tfsum_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c tfsum -n "__fish_tfsum_needs_command" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_needs_command" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_needs_command" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "lock" -d 'Write .terraform.lock.hcl for root modules, with hashes for every platform'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "fmt" -d 'Rewrite existing lock files in canonical form, offline'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "hash" -d 'Print the h1: and zh: hashes of a provider zip or unpacked provider directory'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "verify" -d 'Check that every hash in existing lock files is vouched for by the registry or mirror; writes nothing'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "merge-driver" -d 'Merge two edited lock files three-way: a git merge driver, offline'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "upgrade" -d 'Move version constraints across the repository and relock in the same run'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "outdated" -d 'Show which providers and modules are behind their newest versions; writes nothing'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "mirror" -d 'Fill a provider directory with every locked package, verified, for race-free parallel `init` (a plugin cache or filesystem mirror), or push them to an OCI registry as OpenTofu\'s oci_mirror reads them'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "man" -d 'Print the man page (roff) or write one page per command into a directory'
complete -c tfsum -n "__fish_tfsum_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l format -d 'Report format on stdout' -r -f -a "text\t'For people and logs: one line per root or file, details indented, a summary'
json\t'One JSON document (schema in docs/json-report.md)'
markdown\t'For a pull-request comment or $GITHUB_STEP_SUMMARY: what changes or fails'"
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l platform -d 'Target platform OS_ARCH; repeat or separate with commas [default: this machine\'s]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -s i -l ignore-path -d 'Skip paths matching this regular expression (relative to the searched path, with /)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l flavor -d 'Read every root as this flavor, and that tool\'s CLI configuration [default: detected per root]' -r -f -a "terraform\t''
opentofu\t''"
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l mirror -d 'Also fill this provider directory (as `tfsum mirror DIR`) with every locked package for the platforms locked, unpacking what the run downloads' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l var -d 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l var-file -d 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -s j -l jobs -d 'Maximum concurrent downloads [default: 8]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l per-host -d 'Maximum concurrent requests to one host [default: 6]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l cache-dir -d 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l shared-cache -d 'The organisation\'s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l versions-ttl -d 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l config -d 'Read settings from this file instead of searching for .tfsum.toml' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l fs-mirror -d 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l net-mirror -d 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l oci-mirror -d 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -s r -l recursive -d 'Search the paths recursively for root modules'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l check -d 'Write nothing; exit 1 and show a diff when a lock file is missing or out of date'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l fail-on-write -d 'Write as usual, but exit 1 naming each lock file created or updated (for pre-commit, which misses new files); a run that writes nothing exits 0'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l retry-failed -d 'Re-run only the roots that failed in the last run from this directory'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l upgrade -d 'Choose the newest allowed version even when the locked one still satisfies the constraints'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l no-index -d 'Neither read nor update the configuration index kept in the cache: read every configuration file of the trees searched again (TFSUM_INDEX=false)'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l no-cache -d 'Do not read or write the persistent hash cache'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l offline -d 'Use only the cache: make no network requests'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l no-shared-cache -d 'Do not use a shared cache, whatever the environment or config.toml say'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l fill-shared-cache -d 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l no-config -d 'Ignore the repository\'s .tfsum.toml'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -l use-cli-config-installation -d 'Take packages where the CLI configuration\'s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand lock" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand fmt" -s r -l recursive -d 'Find every .terraform.lock.hcl below the directories'
complete -c tfsum -n "__fish_tfsum_using_subcommand fmt" -l check -d 'Write nothing; exit 1 and show a diff when a file is not canonical'
complete -c tfsum -n "__fish_tfsum_using_subcommand fmt" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand fmt" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand fmt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand fmt" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand hash" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand hash" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand hash" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand hash" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l format -d 'Report format on stdout' -r -f -a "text\t'For people and logs: one line per root or file, details indented, a summary'
json\t'One JSON document (schema in docs/json-report.md)'
markdown\t'For a pull-request comment or $GITHUB_STEP_SUMMARY: what changes or fails'"
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l var -d 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l var-file -d 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -s j -l jobs -d 'Maximum concurrent downloads [default: 8]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l per-host -d 'Maximum concurrent requests to one host [default: 6]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l cache-dir -d 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l shared-cache -d 'The organisation\'s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l versions-ttl -d 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l config -d 'Read settings from this file instead of searching for .tfsum.toml' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l fs-mirror -d 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l net-mirror -d 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l oci-mirror -d 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -s r -l recursive -d 'Find every .terraform.lock.hcl below the directories'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l no-cache -d 'Do not read or write the persistent hash cache'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l offline -d 'Use only the cache: make no network requests'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l no-shared-cache -d 'Do not use a shared cache, whatever the environment or config.toml say'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l fill-shared-cache -d 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l no-config -d 'Ignore the repository\'s .tfsum.toml'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -l use-cli-config-installation -d 'Take packages where the CLI configuration\'s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand verify" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand merge-driver" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand merge-driver" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand merge-driver" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand merge-driver" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and not __fish_seen_subcommand_from provider module terraform opentofu help" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and not __fish_seen_subcommand_from provider module terraform opentofu help" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and not __fish_seen_subcommand_from provider module terraform opentofu help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and not __fish_seen_subcommand_from provider module terraform opentofu help" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and not __fish_seen_subcommand_from provider module terraform opentofu help" -f -a "provider" -d 'required_providers entries and provider blocks of one provider'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and not __fish_seen_subcommand_from provider module terraform opentofu help" -f -a "module" -d 'The version (registry) or ?ref= tag (git) of module calls'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and not __fish_seen_subcommand_from provider module terraform opentofu help" -f -a "terraform" -d 'required_version in the files Terraform reads (.tf, .tf.json)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and not __fish_seen_subcommand_from provider module terraform opentofu help" -f -a "opentofu" -d 'required_version in the files OpenTofu reads (.tofu, .tofu.json, and .tf files without a .tofu twin)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and not __fish_seen_subcommand_from provider module terraform opentofu help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l strategy -d 'How CONSTRAINT omitted or `latest` changes each constraint [default: pin]' -r -f -a "pin\t'Write the version: ~> 5.31 becomes 6.2.0'
bump\t'Keep the operators, move the lower bounds: ~> 5.31 becomes ~> 6.2'
widen\t'Keep the lower bounds, extend the upper ones: < 6.0 becomes < 7.0'"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l format -d 'Report format on stdout' -r -f -a "text\t'For people and logs: one line per root or file, details indented, a summary'
json\t'One JSON document (schema in docs/json-report.md)'
markdown\t'For a pull-request comment or $GITHUB_STEP_SUMMARY: what changes or fails'"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l platform -d 'Target platform OS_ARCH; repeat or separate with commas [default: this machine\'s]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -s i -l ignore-path -d 'Skip paths matching this regular expression (relative to the searched path, with /)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l flavor -d 'Read every root as this flavor, and that tool\'s CLI configuration [default: detected per root]' -r -f -a "terraform\t''
opentofu\t''"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l var -d 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l var-file -d 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -s j -l jobs -d 'Maximum concurrent downloads [default: 8]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l per-host -d 'Maximum concurrent requests to one host [default: 6]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l cache-dir -d 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l shared-cache -d 'The organisation\'s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l versions-ttl -d 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l config -d 'Read settings from this file instead of searching for .tfsum.toml' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l fs-mirror -d 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l net-mirror -d 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l oci-mirror -d 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -s r -l recursive -d 'Search the paths recursively for module directories and root modules'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l check -d 'Write nothing; exit 1 when a constraint or a lock file would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l no-lock -d 'Edit the constraints only; relock nothing'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l no-cache -d 'Do not read or write the persistent hash cache'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l offline -d 'Use only the cache: make no network requests'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l no-shared-cache -d 'Do not use a shared cache, whatever the environment or config.toml say'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l fill-shared-cache -d 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l no-config -d 'Ignore the repository\'s .tfsum.toml'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -l use-cli-config-installation -d 'Take packages where the CLI configuration\'s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from provider" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l match -d 'How SOURCE selects module calls' -r -f -a "full\t'The same registry module or git repository (any //subdir unless SOURCE gives one)'
regex\t'SOURCE is a regular expression searched in each source without its ref'"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l strategy -d 'How CONSTRAINT omitted or `latest` changes each constraint [default: pin]' -r -f -a "pin\t'Write the version: ~> 5.31 becomes 6.2.0'
bump\t'Keep the operators, move the lower bounds: ~> 5.31 becomes ~> 6.2'
widen\t'Keep the lower bounds, extend the upper ones: < 6.0 becomes < 7.0'"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l format -d 'Report format on stdout' -r -f -a "text\t'For people and logs: one line per root or file, details indented, a summary'
json\t'One JSON document (schema in docs/json-report.md)'
markdown\t'For a pull-request comment or $GITHUB_STEP_SUMMARY: what changes or fails'"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l platform -d 'Target platform OS_ARCH; repeat or separate with commas [default: this machine\'s]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -s i -l ignore-path -d 'Skip paths matching this regular expression (relative to the searched path, with /)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l flavor -d 'Read every root as this flavor, and that tool\'s CLI configuration [default: detected per root]' -r -f -a "terraform\t''
opentofu\t''"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l var -d 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l var-file -d 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -s j -l jobs -d 'Maximum concurrent downloads [default: 8]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l per-host -d 'Maximum concurrent requests to one host [default: 6]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l cache-dir -d 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l shared-cache -d 'The organisation\'s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l versions-ttl -d 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l config -d 'Read settings from this file instead of searching for .tfsum.toml' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l fs-mirror -d 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l net-mirror -d 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l oci-mirror -d 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -s r -l recursive -d 'Search the paths recursively for module directories and root modules'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l check -d 'Write nothing; exit 1 when a constraint or a lock file would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l no-lock -d 'Edit the constraints only; relock nothing'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l no-cache -d 'Do not read or write the persistent hash cache'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l offline -d 'Use only the cache: make no network requests'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l no-shared-cache -d 'Do not use a shared cache, whatever the environment or config.toml say'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l fill-shared-cache -d 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l no-config -d 'Ignore the repository\'s .tfsum.toml'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -l use-cli-config-installation -d 'Take packages where the CLI configuration\'s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from module" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l format -d 'Report format on stdout' -r -f -a "text\t'For people and logs: one line per root or file, details indented, a summary'
json\t'One JSON document (schema in docs/json-report.md)'
markdown\t'For a pull-request comment or $GITHUB_STEP_SUMMARY: what changes or fails'"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l platform -d 'Target platform OS_ARCH; repeat or separate with commas [default: this machine\'s]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -s i -l ignore-path -d 'Skip paths matching this regular expression (relative to the searched path, with /)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l flavor -d 'Read every root as this flavor, and that tool\'s CLI configuration [default: detected per root]' -r -f -a "terraform\t''
opentofu\t''"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l var -d 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l var-file -d 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -s j -l jobs -d 'Maximum concurrent downloads [default: 8]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l per-host -d 'Maximum concurrent requests to one host [default: 6]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l cache-dir -d 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l shared-cache -d 'The organisation\'s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l versions-ttl -d 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l config -d 'Read settings from this file instead of searching for .tfsum.toml' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l fs-mirror -d 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l net-mirror -d 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l oci-mirror -d 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -s r -l recursive -d 'Search the paths recursively for module directories and root modules'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l check -d 'Write nothing; exit 1 when a constraint or a lock file would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l no-lock -d 'Edit the constraints only; relock nothing'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l no-cache -d 'Do not read or write the persistent hash cache'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l offline -d 'Use only the cache: make no network requests'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l no-shared-cache -d 'Do not use a shared cache, whatever the environment or config.toml say'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l fill-shared-cache -d 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l no-config -d 'Ignore the repository\'s .tfsum.toml'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -l use-cli-config-installation -d 'Take packages where the CLI configuration\'s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from terraform" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l format -d 'Report format on stdout' -r -f -a "text\t'For people and logs: one line per root or file, details indented, a summary'
json\t'One JSON document (schema in docs/json-report.md)'
markdown\t'For a pull-request comment or $GITHUB_STEP_SUMMARY: what changes or fails'"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l platform -d 'Target platform OS_ARCH; repeat or separate with commas [default: this machine\'s]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -s i -l ignore-path -d 'Skip paths matching this regular expression (relative to the searched path, with /)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l flavor -d 'Read every root as this flavor, and that tool\'s CLI configuration [default: detected per root]' -r -f -a "terraform\t''
opentofu\t''"
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l var -d 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l var-file -d 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -s j -l jobs -d 'Maximum concurrent downloads [default: 8]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l per-host -d 'Maximum concurrent requests to one host [default: 6]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l cache-dir -d 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l shared-cache -d 'The organisation\'s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l versions-ttl -d 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l config -d 'Read settings from this file instead of searching for .tfsum.toml' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l fs-mirror -d 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l net-mirror -d 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l oci-mirror -d 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -s r -l recursive -d 'Search the paths recursively for module directories and root modules'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l check -d 'Write nothing; exit 1 when a constraint or a lock file would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l no-lock -d 'Edit the constraints only; relock nothing'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l no-cache -d 'Do not read or write the persistent hash cache'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l offline -d 'Use only the cache: make no network requests'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l no-shared-cache -d 'Do not use a shared cache, whatever the environment or config.toml say'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l fill-shared-cache -d 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l no-config -d 'Ignore the repository\'s .tfsum.toml'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -l use-cli-config-installation -d 'Take packages where the CLI configuration\'s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from opentofu" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from help" -f -a "provider" -d 'required_providers entries and provider blocks of one provider'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from help" -f -a "module" -d 'The version (registry) or ?ref= tag (git) of module calls'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from help" -f -a "terraform" -d 'required_version in the files Terraform reads (.tf, .tf.json)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from help" -f -a "opentofu" -d 'required_version in the files OpenTofu reads (.tofu, .tofu.json, and .tf files without a .tofu twin)'
complete -c tfsum -n "__fish_tfsum_using_subcommand upgrade; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l format -d 'Report format on stdout' -r -f -a "text\t'For people and logs: one line per root or file, details indented, a summary'
json\t'One JSON document (schema in docs/json-report.md)'
markdown\t'For a pull-request comment or $GITHUB_STEP_SUMMARY: what changes or fails'"
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -s i -l ignore-path -d 'Skip paths matching this regular expression (relative to the searched path, with /)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l flavor -d 'Read every root as this flavor, and that tool\'s CLI configuration [default: detected per root]' -r -f -a "terraform\t''
opentofu\t''"
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l var -d 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l var-file -d 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -s j -l jobs -d 'Maximum concurrent downloads [default: 8]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l per-host -d 'Maximum concurrent requests to one host [default: 6]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l cache-dir -d 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l shared-cache -d 'The organisation\'s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l versions-ttl -d 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l config -d 'Read settings from this file instead of searching for .tfsum.toml' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l fs-mirror -d 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l net-mirror -d 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l oci-mirror -d 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -s r -l recursive -d 'Search the paths recursively for root modules'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l exit-code -d 'Exit 1 when a provider or module is behind its newest published version'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l no-cache -d 'Do not read or write the persistent hash cache'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l offline -d 'Use only the cache: make no network requests'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l no-shared-cache -d 'Do not use a shared cache, whatever the environment or config.toml say'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l fill-shared-cache -d 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l no-config -d 'Ignore the repository\'s .tfsum.toml'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -l use-cli-config-installation -d 'Take packages where the CLI configuration\'s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand outdated" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l platform -d 'Target platform OS_ARCH; repeat or separate with commas [default: this machine\'s]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -s i -l ignore-path -d 'Skip paths matching this regular expression (relative to the searched path, with /)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l flavor -d 'Read every root as this flavor, and that tool\'s CLI configuration [default: detected per root]' -r -f -a "terraform\t''
opentofu\t''"
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l layout -d 'unpacked: HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/ (a plugin cache or filesystem mirror); packed: zips and JSON indexes, as terraform providers mirror writes them; oci: push to an OCI registry as OpenTofu\'s oci_mirror reads it [default: unpacked, oci for an oci:// target]' -r -f -a "unpacked\t''
packed\t''
oci\t''"
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l cli-config -d 'Also write a complete CLI configuration to FILE: yours, plus a provider_installation block that installs the mirrored providers from DIR (with --layout oci: an oci_mirror block)' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l format -d 'Report format on stdout' -r -f -a "text\t'One line per package installed or failing, then a summary'
json\t'One JSON document'"
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l var -d 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l var-file -d 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -s j -l jobs -d 'Maximum concurrent downloads [default: 8]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l per-host -d 'Maximum concurrent requests to one host [default: 6]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l cache-dir -d 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l shared-cache -d 'The organisation\'s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l versions-ttl -d 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l config -d 'Read settings from this file instead of searching for .tfsum.toml' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l fs-mirror -d 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l net-mirror -d 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l oci-mirror -d 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform' -r
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -s r -l recursive -d 'Search the paths recursively for root modules'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l no-cache -d 'Do not read or write the persistent hash cache'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l offline -d 'Use only the cache: make no network requests'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l no-shared-cache -d 'Do not use a shared cache, whatever the environment or config.toml say'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l fill-shared-cache -d 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l no-config -d 'Ignore the repository\'s .tfsum.toml'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -l use-cli-config-installation -d 'Take packages where the CLI configuration\'s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand mirror" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand completions" -l write-all -d 'Write the completion files for every supported shell into DIR' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand completions" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand completions" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c tfsum -n "__fish_tfsum_using_subcommand completions" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand man" -l output -d 'Write tfsum.1 and one page per subcommand (tfsum-lock.1, …) into DIR instead of printing tfsum.1' -r -F
complete -c tfsum -n "__fish_tfsum_using_subcommand man" -s q -l quiet -d 'Print only what needs attention: errors, and what fails or would change'
complete -c tfsum -n "__fish_tfsum_using_subcommand man" -s v -l verbose -d 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
complete -c tfsum -n "__fish_tfsum_using_subcommand man" -s h -l help -d 'Print help'
complete -c tfsum -n "__fish_tfsum_using_subcommand man" -s V -l version -d 'Print version'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "lock" -d 'Write .terraform.lock.hcl for root modules, with hashes for every platform'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "fmt" -d 'Rewrite existing lock files in canonical form, offline'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "hash" -d 'Print the h1: and zh: hashes of a provider zip or unpacked provider directory'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "verify" -d 'Check that every hash in existing lock files is vouched for by the registry or mirror; writes nothing'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "merge-driver" -d 'Merge two edited lock files three-way: a git merge driver, offline'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "upgrade" -d 'Move version constraints across the repository and relock in the same run'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "outdated" -d 'Show which providers and modules are behind their newest versions; writes nothing'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "mirror" -d 'Fill a provider directory with every locked package, verified, for race-free parallel `init` (a plugin cache or filesystem mirror), or push them to an OCI registry as OpenTofu\'s oci_mirror reads them'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "man" -d 'Print the man page (roff) or write one page per command into a directory'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and not __fish_seen_subcommand_from lock fmt hash verify merge-driver upgrade outdated mirror completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and __fish_seen_subcommand_from upgrade" -f -a "provider" -d 'required_providers entries and provider blocks of one provider'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and __fish_seen_subcommand_from upgrade" -f -a "module" -d 'The version (registry) or ?ref= tag (git) of module calls'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and __fish_seen_subcommand_from upgrade" -f -a "terraform" -d 'required_version in the files Terraform reads (.tf, .tf.json)'
complete -c tfsum -n "__fish_tfsum_using_subcommand help; and __fish_seen_subcommand_from upgrade" -f -a "opentofu" -d 'required_version in the files OpenTofu reads (.tofu, .tofu.json, and .tf files without a .tofu twin)'
