use clap::Parser;
use orogen::cli::{Cli, Command, ViewArgs};
use std::process::ExitCode;

fn main() -> ExitCode {
    orogen_core::memory::keep_freed_memory();
    let cli = Cli::parse();
    let result = match &cli.command {
        Some(Command::Generate(args)) => orogen::cli::generate(args),
        Some(Command::Presets { action }) => orogen::cli::presets_command(action),
        Some(Command::View(args)) => orogen::viewer::run(&args.options()),
        Some(Command::Tiles(args)) => orogen::cli::tiles_command(args),
        None => orogen::viewer::run(&ViewArgs::default().options()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
