
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'tfsum' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'tfsum'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'tfsum' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('lock', 'lock', [CompletionResultType]::ParameterValue, 'Write .terraform.lock.hcl for root modules, with hashes for every platform')
            [CompletionResult]::new('fmt', 'fmt', [CompletionResultType]::ParameterValue, 'Rewrite existing lock files in canonical form, offline')
            [CompletionResult]::new('hash', 'hash', [CompletionResultType]::ParameterValue, 'Print the h1: and zh: hashes of a provider zip or unpacked provider directory')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check that every hash in existing lock files is vouched for by the registry or mirror; writes nothing')
            [CompletionResult]::new('merge-driver', 'merge-driver', [CompletionResultType]::ParameterValue, 'Merge two edited lock files three-way: a git merge driver, offline')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Move version constraints across the repository and relock in the same run')
            [CompletionResult]::new('outdated', 'outdated', [CompletionResultType]::ParameterValue, 'Show which providers and modules are behind their newest versions; writes nothing')
            [CompletionResult]::new('mirror', 'mirror', [CompletionResultType]::ParameterValue, 'Fill a provider directory with every locked package, verified, for race-free parallel `init` (a plugin cache or filesystem mirror), or push them to an OCI registry as OpenTofu''s oci_mirror reads them')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff) or write one page per command into a directory')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tfsum;lock' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Report format on stdout')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--ignore-path', '--ignore-path', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--flavor', '--flavor', [CompletionResultType]::ParameterName, 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]')
            [CompletionResult]::new('--mirror', '--mirror', [CompletionResultType]::ParameterName, 'Also fill this provider directory (as `tfsum mirror DIR`) with every locked package for the platforms locked, unpacking what the run downloads')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--per-host', '--per-host', [CompletionResultType]::ParameterName, 'Maximum concurrent requests to one host [default: 6]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]')
            [CompletionResult]::new('--shared-cache', '--shared-cache', [CompletionResultType]::ParameterName, 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)')
            [CompletionResult]::new('--versions-ttl', '--versions-ttl', [CompletionResultType]::ParameterName, 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this file instead of searching for .tfsum.toml')
            [CompletionResult]::new('--fs-mirror', '--fs-mirror', [CompletionResultType]::ParameterName, 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--net-mirror', '--net-mirror', [CompletionResultType]::ParameterName, 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--oci-mirror', '--oci-mirror', [CompletionResultType]::ParameterName, 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Search the paths recursively for root modules')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Search the paths recursively for root modules')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Write nothing; exit 1 and show a diff when a lock file is missing or out of date')
            [CompletionResult]::new('--fail-on-write', '--fail-on-write', [CompletionResultType]::ParameterName, 'Write as usual, but exit 1 naming each lock file created or updated (for pre-commit, which misses new files); a run that writes nothing exits 0')
            [CompletionResult]::new('--retry-failed', '--retry-failed', [CompletionResultType]::ParameterName, 'Re-run only the roots that failed in the last run from this directory')
            [CompletionResult]::new('--upgrade', '--upgrade', [CompletionResultType]::ParameterName, 'Choose the newest allowed version even when the locked one still satisfies the constraints')
            [CompletionResult]::new('--no-index', '--no-index', [CompletionResultType]::ParameterName, 'Neither read nor update the configuration index kept in the cache: read every configuration file of the trees searched again (TFSUM_INDEX=false)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the persistent hash cache')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use only the cache: make no network requests')
            [CompletionResult]::new('--no-shared-cache', '--no-shared-cache', [CompletionResultType]::ParameterName, 'Do not use a shared cache, whatever the environment or config.toml say')
            [CompletionResult]::new('--fill-shared-cache', '--fill-shared-cache', [CompletionResultType]::ParameterName, 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the repository''s .tfsum.toml')
            [CompletionResult]::new('--use-cli-config-installation', '--use-cli-config-installation', [CompletionResultType]::ParameterName, 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;fmt' {
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Find every .terraform.lock.hcl below the directories')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Find every .terraform.lock.hcl below the directories')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Write nothing; exit 1 and show a diff when a file is not canonical')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;hash' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;verify' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Report format on stdout')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--per-host', '--per-host', [CompletionResultType]::ParameterName, 'Maximum concurrent requests to one host [default: 6]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]')
            [CompletionResult]::new('--shared-cache', '--shared-cache', [CompletionResultType]::ParameterName, 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)')
            [CompletionResult]::new('--versions-ttl', '--versions-ttl', [CompletionResultType]::ParameterName, 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this file instead of searching for .tfsum.toml')
            [CompletionResult]::new('--fs-mirror', '--fs-mirror', [CompletionResultType]::ParameterName, 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--net-mirror', '--net-mirror', [CompletionResultType]::ParameterName, 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--oci-mirror', '--oci-mirror', [CompletionResultType]::ParameterName, 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Find every .terraform.lock.hcl below the directories')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Find every .terraform.lock.hcl below the directories')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the persistent hash cache')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use only the cache: make no network requests')
            [CompletionResult]::new('--no-shared-cache', '--no-shared-cache', [CompletionResultType]::ParameterName, 'Do not use a shared cache, whatever the environment or config.toml say')
            [CompletionResult]::new('--fill-shared-cache', '--fill-shared-cache', [CompletionResultType]::ParameterName, 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the repository''s .tfsum.toml')
            [CompletionResult]::new('--use-cli-config-installation', '--use-cli-config-installation', [CompletionResultType]::ParameterName, 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;merge-driver' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;upgrade' {
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('provider', 'provider', [CompletionResultType]::ParameterValue, 'required_providers entries and provider blocks of one provider')
            [CompletionResult]::new('module', 'module', [CompletionResultType]::ParameterValue, 'The version (registry) or ?ref= tag (git) of module calls')
            [CompletionResult]::new('terraform', 'terraform', [CompletionResultType]::ParameterValue, 'required_version in the files Terraform reads (.tf, .tf.json)')
            [CompletionResult]::new('opentofu', 'opentofu', [CompletionResultType]::ParameterValue, 'required_version in the files OpenTofu reads (.tofu, .tofu.json, and .tf files without a .tofu twin)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tfsum;upgrade;provider' {
            [CompletionResult]::new('--strategy', '--strategy', [CompletionResultType]::ParameterName, 'How CONSTRAINT omitted or `latest` changes each constraint [default: pin]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Report format on stdout')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--ignore-path', '--ignore-path', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--flavor', '--flavor', [CompletionResultType]::ParameterName, 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--per-host', '--per-host', [CompletionResultType]::ParameterName, 'Maximum concurrent requests to one host [default: 6]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]')
            [CompletionResult]::new('--shared-cache', '--shared-cache', [CompletionResultType]::ParameterName, 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)')
            [CompletionResult]::new('--versions-ttl', '--versions-ttl', [CompletionResultType]::ParameterName, 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this file instead of searching for .tfsum.toml')
            [CompletionResult]::new('--fs-mirror', '--fs-mirror', [CompletionResultType]::ParameterName, 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--net-mirror', '--net-mirror', [CompletionResultType]::ParameterName, 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--oci-mirror', '--oci-mirror', [CompletionResultType]::ParameterName, 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Search the paths recursively for module directories and root modules')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Search the paths recursively for module directories and root modules')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Write nothing; exit 1 when a constraint or a lock file would change')
            [CompletionResult]::new('--no-lock', '--no-lock', [CompletionResultType]::ParameterName, 'Edit the constraints only; relock nothing')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the persistent hash cache')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use only the cache: make no network requests')
            [CompletionResult]::new('--no-shared-cache', '--no-shared-cache', [CompletionResultType]::ParameterName, 'Do not use a shared cache, whatever the environment or config.toml say')
            [CompletionResult]::new('--fill-shared-cache', '--fill-shared-cache', [CompletionResultType]::ParameterName, 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the repository''s .tfsum.toml')
            [CompletionResult]::new('--use-cli-config-installation', '--use-cli-config-installation', [CompletionResultType]::ParameterName, 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;upgrade;module' {
            [CompletionResult]::new('--match', '--match', [CompletionResultType]::ParameterName, 'How SOURCE selects module calls')
            [CompletionResult]::new('--strategy', '--strategy', [CompletionResultType]::ParameterName, 'How CONSTRAINT omitted or `latest` changes each constraint [default: pin]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Report format on stdout')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--ignore-path', '--ignore-path', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--flavor', '--flavor', [CompletionResultType]::ParameterName, 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--per-host', '--per-host', [CompletionResultType]::ParameterName, 'Maximum concurrent requests to one host [default: 6]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]')
            [CompletionResult]::new('--shared-cache', '--shared-cache', [CompletionResultType]::ParameterName, 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)')
            [CompletionResult]::new('--versions-ttl', '--versions-ttl', [CompletionResultType]::ParameterName, 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this file instead of searching for .tfsum.toml')
            [CompletionResult]::new('--fs-mirror', '--fs-mirror', [CompletionResultType]::ParameterName, 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--net-mirror', '--net-mirror', [CompletionResultType]::ParameterName, 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--oci-mirror', '--oci-mirror', [CompletionResultType]::ParameterName, 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Search the paths recursively for module directories and root modules')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Search the paths recursively for module directories and root modules')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Write nothing; exit 1 when a constraint or a lock file would change')
            [CompletionResult]::new('--no-lock', '--no-lock', [CompletionResultType]::ParameterName, 'Edit the constraints only; relock nothing')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the persistent hash cache')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use only the cache: make no network requests')
            [CompletionResult]::new('--no-shared-cache', '--no-shared-cache', [CompletionResultType]::ParameterName, 'Do not use a shared cache, whatever the environment or config.toml say')
            [CompletionResult]::new('--fill-shared-cache', '--fill-shared-cache', [CompletionResultType]::ParameterName, 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the repository''s .tfsum.toml')
            [CompletionResult]::new('--use-cli-config-installation', '--use-cli-config-installation', [CompletionResultType]::ParameterName, 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;upgrade;terraform' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Report format on stdout')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--ignore-path', '--ignore-path', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--flavor', '--flavor', [CompletionResultType]::ParameterName, 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--per-host', '--per-host', [CompletionResultType]::ParameterName, 'Maximum concurrent requests to one host [default: 6]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]')
            [CompletionResult]::new('--shared-cache', '--shared-cache', [CompletionResultType]::ParameterName, 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)')
            [CompletionResult]::new('--versions-ttl', '--versions-ttl', [CompletionResultType]::ParameterName, 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this file instead of searching for .tfsum.toml')
            [CompletionResult]::new('--fs-mirror', '--fs-mirror', [CompletionResultType]::ParameterName, 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--net-mirror', '--net-mirror', [CompletionResultType]::ParameterName, 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--oci-mirror', '--oci-mirror', [CompletionResultType]::ParameterName, 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Search the paths recursively for module directories and root modules')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Search the paths recursively for module directories and root modules')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Write nothing; exit 1 when a constraint or a lock file would change')
            [CompletionResult]::new('--no-lock', '--no-lock', [CompletionResultType]::ParameterName, 'Edit the constraints only; relock nothing')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the persistent hash cache')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use only the cache: make no network requests')
            [CompletionResult]::new('--no-shared-cache', '--no-shared-cache', [CompletionResultType]::ParameterName, 'Do not use a shared cache, whatever the environment or config.toml say')
            [CompletionResult]::new('--fill-shared-cache', '--fill-shared-cache', [CompletionResultType]::ParameterName, 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the repository''s .tfsum.toml')
            [CompletionResult]::new('--use-cli-config-installation', '--use-cli-config-installation', [CompletionResultType]::ParameterName, 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;upgrade;opentofu' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Report format on stdout')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--ignore-path', '--ignore-path', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--flavor', '--flavor', [CompletionResultType]::ParameterName, 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--per-host', '--per-host', [CompletionResultType]::ParameterName, 'Maximum concurrent requests to one host [default: 6]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]')
            [CompletionResult]::new('--shared-cache', '--shared-cache', [CompletionResultType]::ParameterName, 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)')
            [CompletionResult]::new('--versions-ttl', '--versions-ttl', [CompletionResultType]::ParameterName, 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this file instead of searching for .tfsum.toml')
            [CompletionResult]::new('--fs-mirror', '--fs-mirror', [CompletionResultType]::ParameterName, 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--net-mirror', '--net-mirror', [CompletionResultType]::ParameterName, 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--oci-mirror', '--oci-mirror', [CompletionResultType]::ParameterName, 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Search the paths recursively for module directories and root modules')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Search the paths recursively for module directories and root modules')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Write nothing; exit 1 when a constraint or a lock file would change')
            [CompletionResult]::new('--no-lock', '--no-lock', [CompletionResultType]::ParameterName, 'Edit the constraints only; relock nothing')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the persistent hash cache')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use only the cache: make no network requests')
            [CompletionResult]::new('--no-shared-cache', '--no-shared-cache', [CompletionResultType]::ParameterName, 'Do not use a shared cache, whatever the environment or config.toml say')
            [CompletionResult]::new('--fill-shared-cache', '--fill-shared-cache', [CompletionResultType]::ParameterName, 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the repository''s .tfsum.toml')
            [CompletionResult]::new('--use-cli-config-installation', '--use-cli-config-installation', [CompletionResultType]::ParameterName, 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;upgrade;help' {
            [CompletionResult]::new('provider', 'provider', [CompletionResultType]::ParameterValue, 'required_providers entries and provider blocks of one provider')
            [CompletionResult]::new('module', 'module', [CompletionResultType]::ParameterValue, 'The version (registry) or ?ref= tag (git) of module calls')
            [CompletionResult]::new('terraform', 'terraform', [CompletionResultType]::ParameterValue, 'required_version in the files Terraform reads (.tf, .tf.json)')
            [CompletionResult]::new('opentofu', 'opentofu', [CompletionResultType]::ParameterValue, 'required_version in the files OpenTofu reads (.tofu, .tofu.json, and .tf files without a .tofu twin)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tfsum;upgrade;help;provider' {
            break
        }
        'tfsum;upgrade;help;module' {
            break
        }
        'tfsum;upgrade;help;terraform' {
            break
        }
        'tfsum;upgrade;help;opentofu' {
            break
        }
        'tfsum;upgrade;help;help' {
            break
        }
        'tfsum;outdated' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Report format on stdout')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--ignore-path', '--ignore-path', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--flavor', '--flavor', [CompletionResultType]::ParameterName, 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--per-host', '--per-host', [CompletionResultType]::ParameterName, 'Maximum concurrent requests to one host [default: 6]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]')
            [CompletionResult]::new('--shared-cache', '--shared-cache', [CompletionResultType]::ParameterName, 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)')
            [CompletionResult]::new('--versions-ttl', '--versions-ttl', [CompletionResultType]::ParameterName, 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this file instead of searching for .tfsum.toml')
            [CompletionResult]::new('--fs-mirror', '--fs-mirror', [CompletionResultType]::ParameterName, 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--net-mirror', '--net-mirror', [CompletionResultType]::ParameterName, 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--oci-mirror', '--oci-mirror', [CompletionResultType]::ParameterName, 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Search the paths recursively for root modules')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Search the paths recursively for root modules')
            [CompletionResult]::new('--exit-code', '--exit-code', [CompletionResultType]::ParameterName, 'Exit 1 when a provider or module is behind its newest published version')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the persistent hash cache')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use only the cache: make no network requests')
            [CompletionResult]::new('--no-shared-cache', '--no-shared-cache', [CompletionResultType]::ParameterName, 'Do not use a shared cache, whatever the environment or config.toml say')
            [CompletionResult]::new('--fill-shared-cache', '--fill-shared-cache', [CompletionResultType]::ParameterName, 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the repository''s .tfsum.toml')
            [CompletionResult]::new('--use-cli-config-installation', '--use-cli-config-installation', [CompletionResultType]::ParameterName, 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;mirror' {
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--ignore-path', '--ignore-path', [CompletionResultType]::ParameterName, 'Skip paths matching this regular expression (relative to the searched path, with /)')
            [CompletionResult]::new('--flavor', '--flavor', [CompletionResultType]::ParameterName, 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]')
            [CompletionResult]::new('--layout', '--layout', [CompletionResultType]::ParameterName, 'unpacked: HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/ (a plugin cache or filesystem mirror); packed: zips and JSON indexes, as terraform providers mirror writes them; oci: push to an OCI registry as OpenTofu''s oci_mirror reads it [default: unpacked, oci for an oci:// target]')
            [CompletionResult]::new('--cli-config', '--cli-config', [CompletionResultType]::ParameterName, 'Also write a complete CLI configuration to FILE: yours, plus a provider_installation block that installs the mirrored providers from DIR (with --layout oci: an oci_mirror block)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Report format on stdout')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Maximum concurrent downloads [default: 8]')
            [CompletionResult]::new('--per-host', '--per-host', [CompletionResultType]::ParameterName, 'Maximum concurrent requests to one host [default: 6]')
            [CompletionResult]::new('--cache-dir', '--cache-dir', [CompletionResultType]::ParameterName, 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]')
            [CompletionResult]::new('--shared-cache', '--shared-cache', [CompletionResultType]::ParameterName, 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)')
            [CompletionResult]::new('--versions-ttl', '--versions-ttl', [CompletionResultType]::ParameterName, 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this file instead of searching for .tfsum.toml')
            [CompletionResult]::new('--fs-mirror', '--fs-mirror', [CompletionResultType]::ParameterName, 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--net-mirror', '--net-mirror', [CompletionResultType]::ParameterName, 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes')
            [CompletionResult]::new('--oci-mirror', '--oci-mirror', [CompletionResultType]::ParameterName, 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Search the paths recursively for root modules')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Search the paths recursively for root modules')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Do not read or write the persistent hash cache')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use only the cache: make no network requests')
            [CompletionResult]::new('--no-shared-cache', '--no-shared-cache', [CompletionResultType]::ParameterName, 'Do not use a shared cache, whatever the environment or config.toml say')
            [CompletionResult]::new('--fill-shared-cache', '--fill-shared-cache', [CompletionResultType]::ParameterName, 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Ignore the repository''s .tfsum.toml')
            [CompletionResult]::new('--use-cli-config-installation', '--use-cli-config-installation', [CompletionResultType]::ParameterName, 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;completions' {
            [CompletionResult]::new('--write-all', '--write-all', [CompletionResultType]::ParameterName, 'Write the completion files for every supported shell into DIR')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;man' {
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write tfsum.1 and one page per subcommand (tfsum-lock.1, …) into DIR instead of printing tfsum.1')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only what needs attention: errors, and what fails or would change')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'tfsum;help' {
            [CompletionResult]::new('lock', 'lock', [CompletionResultType]::ParameterValue, 'Write .terraform.lock.hcl for root modules, with hashes for every platform')
            [CompletionResult]::new('fmt', 'fmt', [CompletionResultType]::ParameterValue, 'Rewrite existing lock files in canonical form, offline')
            [CompletionResult]::new('hash', 'hash', [CompletionResultType]::ParameterValue, 'Print the h1: and zh: hashes of a provider zip or unpacked provider directory')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check that every hash in existing lock files is vouched for by the registry or mirror; writes nothing')
            [CompletionResult]::new('merge-driver', 'merge-driver', [CompletionResultType]::ParameterValue, 'Merge two edited lock files three-way: a git merge driver, offline')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Move version constraints across the repository and relock in the same run')
            [CompletionResult]::new('outdated', 'outdated', [CompletionResultType]::ParameterValue, 'Show which providers and modules are behind their newest versions; writes nothing')
            [CompletionResult]::new('mirror', 'mirror', [CompletionResultType]::ParameterValue, 'Fill a provider directory with every locked package, verified, for race-free parallel `init` (a plugin cache or filesystem mirror), or push them to an OCI registry as OpenTofu''s oci_mirror reads them')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff) or write one page per command into a directory')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'tfsum;help;lock' {
            break
        }
        'tfsum;help;fmt' {
            break
        }
        'tfsum;help;hash' {
            break
        }
        'tfsum;help;verify' {
            break
        }
        'tfsum;help;merge-driver' {
            break
        }
        'tfsum;help;upgrade' {
            [CompletionResult]::new('provider', 'provider', [CompletionResultType]::ParameterValue, 'required_providers entries and provider blocks of one provider')
            [CompletionResult]::new('module', 'module', [CompletionResultType]::ParameterValue, 'The version (registry) or ?ref= tag (git) of module calls')
            [CompletionResult]::new('terraform', 'terraform', [CompletionResultType]::ParameterValue, 'required_version in the files Terraform reads (.tf, .tf.json)')
            [CompletionResult]::new('opentofu', 'opentofu', [CompletionResultType]::ParameterValue, 'required_version in the files OpenTofu reads (.tofu, .tofu.json, and .tf files without a .tofu twin)')
            break
        }
        'tfsum;help;upgrade;provider' {
            break
        }
        'tfsum;help;upgrade;module' {
            break
        }
        'tfsum;help;upgrade;terraform' {
            break
        }
        'tfsum;help;upgrade;opentofu' {
            break
        }
        'tfsum;help;outdated' {
            break
        }
        'tfsum;help;mirror' {
            break
        }
        'tfsum;help;completions' {
            break
        }
        'tfsum;help;man' {
            break
        }
        'tfsum;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
