
use builtin;
use str;

set edit:completion:arg-completer[tfsum] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'tfsum'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'tfsum'= {
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand lock 'Write .terraform.lock.hcl for root modules, with hashes for every platform'
            cand fmt 'Rewrite existing lock files in canonical form, offline'
            cand hash 'Print the h1: and zh: hashes of a provider zip or unpacked provider directory'
            cand verify 'Check that every hash in existing lock files is vouched for by the registry or mirror; writes nothing'
            cand merge-driver 'Merge two edited lock files three-way: a git merge driver, offline'
            cand upgrade 'Move version constraints across the repository and relock in the same run'
            cand outdated 'Show which providers and modules are behind their newest versions; writes nothing'
            cand mirror 'Fill a provider directory with every locked package, verified, for race-free parallel `init` (a plugin cache or filesystem mirror), or push them to an OCI registry as OpenTofu''s oci_mirror reads them'
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff) or write one page per command into a directory'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tfsum;lock'= {
            cand --format 'Report format on stdout'
            cand --platform 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]'
            cand -i 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --ignore-path 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --flavor 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]'
            cand --mirror 'Also fill this provider directory (as `tfsum mirror DIR`) with every locked package for the platforms locked, unpacking what the run downloads'
            cand --var 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it'
            cand --var-file 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable'
            cand -j 'Maximum concurrent downloads [default: 8]'
            cand --jobs 'Maximum concurrent downloads [default: 8]'
            cand --per-host 'Maximum concurrent requests to one host [default: 6]'
            cand --cache-dir 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]'
            cand --shared-cache 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)'
            cand --versions-ttl 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]'
            cand --config 'Read settings from this file instead of searching for .tfsum.toml'
            cand --fs-mirror 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes'
            cand --net-mirror 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes'
            cand --oci-mirror 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform'
            cand -r 'Search the paths recursively for root modules'
            cand --recursive 'Search the paths recursively for root modules'
            cand --check 'Write nothing; exit 1 and show a diff when a lock file is missing or out of date'
            cand --fail-on-write 'Write as usual, but exit 1 naming each lock file created or updated (for pre-commit, which misses new files); a run that writes nothing exits 0'
            cand --retry-failed 'Re-run only the roots that failed in the last run from this directory'
            cand --upgrade 'Choose the newest allowed version even when the locked one still satisfies the constraints'
            cand --no-index 'Neither read nor update the configuration index kept in the cache: read every configuration file of the trees searched again (TFSUM_INDEX=false)'
            cand --no-cache 'Do not read or write the persistent hash cache'
            cand --offline 'Use only the cache: make no network requests'
            cand --no-shared-cache 'Do not use a shared cache, whatever the environment or config.toml say'
            cand --fill-shared-cache 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
            cand --no-config 'Ignore the repository''s .tfsum.toml'
            cand --use-cli-config-installation 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;fmt'= {
            cand -r 'Find every .terraform.lock.hcl below the directories'
            cand --recursive 'Find every .terraform.lock.hcl below the directories'
            cand --check 'Write nothing; exit 1 and show a diff when a file is not canonical'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;hash'= {
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;verify'= {
            cand --format 'Report format on stdout'
            cand --var 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it'
            cand --var-file 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable'
            cand -j 'Maximum concurrent downloads [default: 8]'
            cand --jobs 'Maximum concurrent downloads [default: 8]'
            cand --per-host 'Maximum concurrent requests to one host [default: 6]'
            cand --cache-dir 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]'
            cand --shared-cache 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)'
            cand --versions-ttl 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]'
            cand --config 'Read settings from this file instead of searching for .tfsum.toml'
            cand --fs-mirror 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes'
            cand --net-mirror 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes'
            cand --oci-mirror 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform'
            cand -r 'Find every .terraform.lock.hcl below the directories'
            cand --recursive 'Find every .terraform.lock.hcl below the directories'
            cand --no-cache 'Do not read or write the persistent hash cache'
            cand --offline 'Use only the cache: make no network requests'
            cand --no-shared-cache 'Do not use a shared cache, whatever the environment or config.toml say'
            cand --fill-shared-cache 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
            cand --no-config 'Ignore the repository''s .tfsum.toml'
            cand --use-cli-config-installation 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;merge-driver'= {
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;upgrade'= {
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand provider 'required_providers entries and provider blocks of one provider'
            cand module 'The version (registry) or ?ref= tag (git) of module calls'
            cand terraform 'required_version in the files Terraform reads (.tf, .tf.json)'
            cand opentofu 'required_version in the files OpenTofu reads (.tofu, .tofu.json, and .tf files without a .tofu twin)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tfsum;upgrade;provider'= {
            cand --strategy 'How CONSTRAINT omitted or `latest` changes each constraint [default: pin]'
            cand --format 'Report format on stdout'
            cand --platform 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]'
            cand -i 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --ignore-path 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --flavor 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]'
            cand --var 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it'
            cand --var-file 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable'
            cand -j 'Maximum concurrent downloads [default: 8]'
            cand --jobs 'Maximum concurrent downloads [default: 8]'
            cand --per-host 'Maximum concurrent requests to one host [default: 6]'
            cand --cache-dir 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]'
            cand --shared-cache 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)'
            cand --versions-ttl 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]'
            cand --config 'Read settings from this file instead of searching for .tfsum.toml'
            cand --fs-mirror 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes'
            cand --net-mirror 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes'
            cand --oci-mirror 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform'
            cand -r 'Search the paths recursively for module directories and root modules'
            cand --recursive 'Search the paths recursively for module directories and root modules'
            cand --check 'Write nothing; exit 1 when a constraint or a lock file would change'
            cand --no-lock 'Edit the constraints only; relock nothing'
            cand --no-cache 'Do not read or write the persistent hash cache'
            cand --offline 'Use only the cache: make no network requests'
            cand --no-shared-cache 'Do not use a shared cache, whatever the environment or config.toml say'
            cand --fill-shared-cache 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
            cand --no-config 'Ignore the repository''s .tfsum.toml'
            cand --use-cli-config-installation 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;upgrade;module'= {
            cand --match 'How SOURCE selects module calls'
            cand --strategy 'How CONSTRAINT omitted or `latest` changes each constraint [default: pin]'
            cand --format 'Report format on stdout'
            cand --platform 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]'
            cand -i 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --ignore-path 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --flavor 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]'
            cand --var 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it'
            cand --var-file 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable'
            cand -j 'Maximum concurrent downloads [default: 8]'
            cand --jobs 'Maximum concurrent downloads [default: 8]'
            cand --per-host 'Maximum concurrent requests to one host [default: 6]'
            cand --cache-dir 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]'
            cand --shared-cache 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)'
            cand --versions-ttl 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]'
            cand --config 'Read settings from this file instead of searching for .tfsum.toml'
            cand --fs-mirror 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes'
            cand --net-mirror 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes'
            cand --oci-mirror 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform'
            cand -r 'Search the paths recursively for module directories and root modules'
            cand --recursive 'Search the paths recursively for module directories and root modules'
            cand --check 'Write nothing; exit 1 when a constraint or a lock file would change'
            cand --no-lock 'Edit the constraints only; relock nothing'
            cand --no-cache 'Do not read or write the persistent hash cache'
            cand --offline 'Use only the cache: make no network requests'
            cand --no-shared-cache 'Do not use a shared cache, whatever the environment or config.toml say'
            cand --fill-shared-cache 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
            cand --no-config 'Ignore the repository''s .tfsum.toml'
            cand --use-cli-config-installation 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;upgrade;terraform'= {
            cand --format 'Report format on stdout'
            cand --platform 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]'
            cand -i 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --ignore-path 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --flavor 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]'
            cand --var 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it'
            cand --var-file 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable'
            cand -j 'Maximum concurrent downloads [default: 8]'
            cand --jobs 'Maximum concurrent downloads [default: 8]'
            cand --per-host 'Maximum concurrent requests to one host [default: 6]'
            cand --cache-dir 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]'
            cand --shared-cache 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)'
            cand --versions-ttl 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]'
            cand --config 'Read settings from this file instead of searching for .tfsum.toml'
            cand --fs-mirror 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes'
            cand --net-mirror 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes'
            cand --oci-mirror 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform'
            cand -r 'Search the paths recursively for module directories and root modules'
            cand --recursive 'Search the paths recursively for module directories and root modules'
            cand --check 'Write nothing; exit 1 when a constraint or a lock file would change'
            cand --no-lock 'Edit the constraints only; relock nothing'
            cand --no-cache 'Do not read or write the persistent hash cache'
            cand --offline 'Use only the cache: make no network requests'
            cand --no-shared-cache 'Do not use a shared cache, whatever the environment or config.toml say'
            cand --fill-shared-cache 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
            cand --no-config 'Ignore the repository''s .tfsum.toml'
            cand --use-cli-config-installation 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;upgrade;opentofu'= {
            cand --format 'Report format on stdout'
            cand --platform 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]'
            cand -i 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --ignore-path 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --flavor 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]'
            cand --var 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it'
            cand --var-file 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable'
            cand -j 'Maximum concurrent downloads [default: 8]'
            cand --jobs 'Maximum concurrent downloads [default: 8]'
            cand --per-host 'Maximum concurrent requests to one host [default: 6]'
            cand --cache-dir 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]'
            cand --shared-cache 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)'
            cand --versions-ttl 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]'
            cand --config 'Read settings from this file instead of searching for .tfsum.toml'
            cand --fs-mirror 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes'
            cand --net-mirror 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes'
            cand --oci-mirror 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform'
            cand -r 'Search the paths recursively for module directories and root modules'
            cand --recursive 'Search the paths recursively for module directories and root modules'
            cand --check 'Write nothing; exit 1 when a constraint or a lock file would change'
            cand --no-lock 'Edit the constraints only; relock nothing'
            cand --no-cache 'Do not read or write the persistent hash cache'
            cand --offline 'Use only the cache: make no network requests'
            cand --no-shared-cache 'Do not use a shared cache, whatever the environment or config.toml say'
            cand --fill-shared-cache 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
            cand --no-config 'Ignore the repository''s .tfsum.toml'
            cand --use-cli-config-installation 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;upgrade;help'= {
            cand provider 'required_providers entries and provider blocks of one provider'
            cand module 'The version (registry) or ?ref= tag (git) of module calls'
            cand terraform 'required_version in the files Terraform reads (.tf, .tf.json)'
            cand opentofu 'required_version in the files OpenTofu reads (.tofu, .tofu.json, and .tf files without a .tofu twin)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tfsum;upgrade;help;provider'= {
        }
        &'tfsum;upgrade;help;module'= {
        }
        &'tfsum;upgrade;help;terraform'= {
        }
        &'tfsum;upgrade;help;opentofu'= {
        }
        &'tfsum;upgrade;help;help'= {
        }
        &'tfsum;outdated'= {
            cand --format 'Report format on stdout'
            cand -i 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --ignore-path 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --flavor 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]'
            cand --var 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it'
            cand --var-file 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable'
            cand -j 'Maximum concurrent downloads [default: 8]'
            cand --jobs 'Maximum concurrent downloads [default: 8]'
            cand --per-host 'Maximum concurrent requests to one host [default: 6]'
            cand --cache-dir 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]'
            cand --shared-cache 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)'
            cand --versions-ttl 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]'
            cand --config 'Read settings from this file instead of searching for .tfsum.toml'
            cand --fs-mirror 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes'
            cand --net-mirror 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes'
            cand --oci-mirror 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform'
            cand -r 'Search the paths recursively for root modules'
            cand --recursive 'Search the paths recursively for root modules'
            cand --exit-code 'Exit 1 when a provider or module is behind its newest published version'
            cand --no-cache 'Do not read or write the persistent hash cache'
            cand --offline 'Use only the cache: make no network requests'
            cand --no-shared-cache 'Do not use a shared cache, whatever the environment or config.toml say'
            cand --fill-shared-cache 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
            cand --no-config 'Ignore the repository''s .tfsum.toml'
            cand --use-cli-config-installation 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;mirror'= {
            cand --platform 'Target platform OS_ARCH; repeat or separate with commas [default: this machine''s]'
            cand -i 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --ignore-path 'Skip paths matching this regular expression (relative to the searched path, with /)'
            cand --flavor 'Read every root as this flavor, and that tool''s CLI configuration [default: detected per root]'
            cand --layout 'unpacked: HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/ (a plugin cache or filesystem mirror); packed: zips and JSON indexes, as terraform providers mirror writes them; oci: push to an OCI registry as OpenTofu''s oci_mirror reads it [default: unpacked, oci for an oci:// target]'
            cand --cli-config 'Also write a complete CLI configuration to FILE: yours, plus a provider_installation block that installs the mirrored providers from DIR (with --layout oci: an oci_mirror block)'
            cand --format 'Report format on stdout'
            cand --var 'Set a root module variable, as `terraform init -var`; repeatable. A root that does not declare NAME ignores it'
            cand --var-file 'Read variable values from a .tfvars or .tfvars.json file, as `terraform init -var-file`; repeatable'
            cand -j 'Maximum concurrent downloads [default: 8]'
            cand --jobs 'Maximum concurrent downloads [default: 8]'
            cand --per-host 'Maximum concurrent requests to one host [default: 6]'
            cand --cache-dir 'Directory of the persistent hash cache [default: the OS cache dir + /tfsum]'
            cand --shared-cache 'The organisation''s shared hash cache, read on a local miss and written by a run holding the signing key: s3://BUCKET/PREFIX, gs://, az://, https:// or file:// (also TFSUM_SHARED_CACHE, or shared_cache in your own config.toml)'
            cand --versions-ttl 'How long a cached version list, and the commit a git ref was last listed at, stay fresh, in seconds [default: 300]'
            cand --config 'Read settings from this file instead of searching for .tfsum.toml'
            cand --fs-mirror 'Take every package from this filesystem mirror instead of the registries (as terraform providers lock -fs-mirror); a mirror vouches only for h1: hashes'
            cand --net-mirror 'Take every package from this https network mirror instead of the registries (as terraform providers lock -net-mirror); a mirror vouches only for h1: hashes'
            cand --oci-mirror 'Take every package from this OpenTofu OCI registry mirror instead of the registries (as tofu providers lock -oci-mirror): a template such as registry.example/providers/{namespace}/{type}; records h1: and zh: per platform'
            cand -r 'Search the paths recursively for root modules'
            cand --recursive 'Search the paths recursively for root modules'
            cand --no-cache 'Do not read or write the persistent hash cache'
            cand --offline 'Use only the cache: make no network requests'
            cand --no-shared-cache 'Do not use a shared cache, whatever the environment or config.toml say'
            cand --fill-shared-cache 'Also write to the shared cache what the local cache already holds, to prefill it for the providers and platforms of this run (needs the signing key)'
            cand --no-config 'Ignore the repository''s .tfsum.toml'
            cand --use-cli-config-installation 'Take packages where the CLI configuration''s provider_installation block says (filesystem, network and OCI mirrors, direct, include/exclude), as terraform init does'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;completions'= {
            cand --write-all 'Write the completion files for every supported shell into DIR'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;man'= {
            cand --output 'Write tfsum.1 and one page per subcommand (tfsum-lock.1, …) into DIR instead of printing tfsum.1'
            cand -q 'Print only what needs attention: errors, and what fails or would change'
            cand --quiet 'Print only what needs attention: errors, and what fails or would change'
            cand -v 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand --verbose 'Log what tfsum does to stderr; repeat for more (RUST_LOG overrides)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'tfsum;help'= {
            cand lock 'Write .terraform.lock.hcl for root modules, with hashes for every platform'
            cand fmt 'Rewrite existing lock files in canonical form, offline'
            cand hash 'Print the h1: and zh: hashes of a provider zip or unpacked provider directory'
            cand verify 'Check that every hash in existing lock files is vouched for by the registry or mirror; writes nothing'
            cand merge-driver 'Merge two edited lock files three-way: a git merge driver, offline'
            cand upgrade 'Move version constraints across the repository and relock in the same run'
            cand outdated 'Show which providers and modules are behind their newest versions; writes nothing'
            cand mirror 'Fill a provider directory with every locked package, verified, for race-free parallel `init` (a plugin cache or filesystem mirror), or push them to an OCI registry as OpenTofu''s oci_mirror reads them'
            cand completions 'Print a shell completion script'
            cand man 'Print the man page (roff) or write one page per command into a directory'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'tfsum;help;lock'= {
        }
        &'tfsum;help;fmt'= {
        }
        &'tfsum;help;hash'= {
        }
        &'tfsum;help;verify'= {
        }
        &'tfsum;help;merge-driver'= {
        }
        &'tfsum;help;upgrade'= {
            cand provider 'required_providers entries and provider blocks of one provider'
            cand module 'The version (registry) or ?ref= tag (git) of module calls'
            cand terraform 'required_version in the files Terraform reads (.tf, .tf.json)'
            cand opentofu 'required_version in the files OpenTofu reads (.tofu, .tofu.json, and .tf files without a .tofu twin)'
        }
        &'tfsum;help;upgrade;provider'= {
        }
        &'tfsum;help;upgrade;module'= {
        }
        &'tfsum;help;upgrade;terraform'= {
        }
        &'tfsum;help;upgrade;opentofu'= {
        }
        &'tfsum;help;outdated'= {
        }
        &'tfsum;help;mirror'= {
        }
        &'tfsum;help;completions'= {
        }
        &'tfsum;help;man'= {
        }
        &'tfsum;help;help'= {
        }
    ]
    $completions[$command]
}
