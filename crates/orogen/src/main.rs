use clap::Parser;
use orogen::cli::ViewArgs;
use orogen::cli::{Cli, Command};
use std::io::IsTerminal;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// The shell's status for a process stopped by SIGINT (128 + 2).
const INTERRUPTED_EXIT: i32 = 130;

/// Set by the Ctrl+C handler before it removes the temporary files.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// On Ctrl+C (SIGINT), removes the temporary files of the export in
/// progress and exits with status 130, so a stopped export leaves no
/// `.<name>.<pid>.<nonce>.<n>.tmp` (nor its `.orogen-…lock` file) behind.
/// Final files already in place stay, each whole. `ctrlc` runs this on
/// its own thread, where taking the core's lock and removing files is
/// safe (unlike inside a raw signal handler).
fn exit_cleanly_on_ctrl_c() {
    let installed = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, Ordering::SeqCst);
        // A closed stderr must fail the note below, not end the process
        // (SIGPIPE) before it exits with 130.
        #[cfg(unix)]
        // SAFETY: sets a signal's action to ignore; no handler runs.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        let removed = orogen_core::io::atomic::remove_live_temp_files();
        // On a terminal the progress bar holds the current line.
        let newline = if std::io::stderr().is_terminal() {
            "\n"
        } else {
            ""
        };
        // A closed stderr (a pipe whose reader took the same Ctrl+C) must
        // not stop the exit: `eprintln!` would panic this thread.
        let _ = writeln!(
            std::io::stderr(),
            "{newline}interrupted: removed {removed} unfinished temporary file(s)"
        );
        std::process::exit(INTERRUPTED_EXIT);
    });
    if let Err(e) = installed {
        // Without the handler Ctrl+C still stops the export; the next
        // export into the folder clears its temporary files.
        eprintln!(
            "warning: cannot handle Ctrl+C ({e}); an interrupted export may leave temporary files until the next export"
        );
    }
}

/// A command-line mistake as one line, like every other error: clap's
/// message and its hints, without the usage block.
fn one_line(rendered: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut in_usage = false;
    // clap names the help that fits ('orogen generate --help').
    let mut hint = "orogen --help".to_string();
    for line in rendered.lines().map(str::trim) {
        if line.starts_with("Usage:") {
            in_usage = true;
            continue;
        }
        if line.is_empty() {
            in_usage = false;
            continue;
        }
        if let Some(rest) = line.strip_prefix("For more information, try '") {
            hint = rest.trim_end_matches(['\'', '.']).to_string();
            continue;
        }
        if in_usage {
            continue;
        }
        let part = line.strip_prefix("error: ").unwrap_or(line);
        // "… not provided:" + "--recipe <RECIPE>", "… 'x'" + "[possible values: …]"
        let joiner = match parts.last() {
            None => "",
            Some(previous) if previous.ends_with(':') || part.starts_with('[') => " ",
            Some(_) => "; ",
        };
        parts.push(format!("{joiner}{part}"));
    }
    if hint == "--help" {
        // The help of the command that was typed.
        let command = std::env::args().nth(1).filter(|a| {
            ["generate", "view", "presets", "tiles", "plan", "facts"].contains(&a.as_str())
        });
        hint = match command {
            Some(command) => format!("orogen {command} --help"),
            None => "orogen --help".into(),
        };
    }
    format!("error: {} (see {hint})", parts.concat())
}

/// Output piped into `head` and the like: end quietly when the reader
/// goes, as Unix tools do, instead of panicking on the broken pipe.
fn die_quietly_on_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal before any thread
    // starts; no handler runs Rust code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    orogen_core::memory::keep_freed_memory();
    die_quietly_on_broken_pipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                e.exit();
            }
            eprintln!("{}", one_line(&e.render().to_string()));
            return ExitCode::from(2);
        }
    };
    // Only the commands that write files get the handler; the viewer keeps
    // its own handling of Ctrl+C and window close.
    if matches!(
        cli.command,
        Some(Command::Generate(_) | Command::Tiles(_) | Command::Plan(_) | Command::Facts(_))
    ) {
        exit_cleanly_on_ctrl_c();
    }
    let result = match &cli.command {
        Some(Command::Generate(args)) => orogen::cli::generate_command(args),
        Some(Command::Presets { action }) => orogen::cli::presets_command(action),
        Some(Command::View(args)) => args.options().and_then(|o| orogen::viewer::run(&o)),
        Some(Command::Tiles(args)) => orogen::cli::tiles_command(args),
        Some(Command::Plan(args)) => orogen::cli::plan_command(args),
        Some(Command::Facts(args)) => orogen::cli::facts_command(args),
        None => ViewArgs::default()
            .options()
            .and_then(|o| orogen::viewer::run(&o)),
    };
    if INTERRUPTED.load(Ordering::SeqCst) {
        // Ctrl+C came in: its cleanup may have removed a temporary file
        // under the export, which then failed. Report nothing and leave
        // the exit (130) to the handler thread, which must not be cut short
        // while it removes files.
        loop {
            std::thread::park();
        }
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
