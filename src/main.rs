fn main() -> std::process::ExitCode {
    iogauge::cli::main()
}
