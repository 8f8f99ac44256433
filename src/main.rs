//! The `tfsum` binary: everything is in the library, whose [`tfsum::main`] parses the
//! arguments, runs the command and returns the exit code.

fn main() -> std::process::ExitCode {
    tfsum::main()
}
