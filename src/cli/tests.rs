//! The parser: flag spellings, closed choices and the help's exit codes.

use clap::{CommandFactory, Parser};

use super::args::Split;
use super::export::ExportCmd;
use super::part::PartCmd;
use super::{Cli, Cmd};

/// Parses `kibo ARGS…`.
fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("kibo").chain(args.iter().copied()))
}

/// The splits of a `kibo export vlm`, `kibo label` or `kibo part label` command line.
fn splits(args: &[&str]) -> Vec<Split> {
    match parse(args).unwrap_or_else(|e| panic!("{args:?}: {e}")).cmd {
        Cmd::Export(ExportCmd::Vlm(a)) => a.draw.splits,
        Cmd::Label(a) => a.draw.splits,
        Cmd::Part(PartCmd::Label(a)) => a.label.draw.splits,
        c => panic!("{args:?}: {c:?}"),
    }
}

#[test]
fn split_and_splits_are_one_flag_of_export_vlm_and_label() {
    let vlm = ["export", "vlm", "--out", "o", "--to", "d"];
    let label = ["label", "--out", "o"];
    let part = ["part", "label", "--out", "o", "--part", "0", "--parts", "2"];
    for base in [&vlm[..], &label[..], &part[..]] {
        let with = |flag: &str, value: &str| splits(&[base, &[flag, value]].concat());
        assert_eq!(splits(base), [Split::Train, Split::Val], "{base:?}: the default");
        assert_eq!(with("--split", "test"), [Split::Test], "{base:?}");
        assert_eq!(with("--splits", "test"), [Split::Test], "{base:?}");
        assert_eq!(with("--split", "train,val"), with("--splits", "train,val"), "{base:?}");
        assert_eq!(with("--split", "train,val,test"), [Split::Train, Split::Val, Split::Test], "{base:?}");
        assert!(parse(&[base, &["--splits", "tset"]].concat()).is_err(), "{base:?}: a misspelt split");
    }
}

#[test]
fn closed_choices_refuse_other_values_when_parsed() {
    let vlm = ["export", "vlm", "--out", "o", "--to", "d"];
    for (args, flag) in [
        (&[&vlm[..], &["--answer", "engine"]].concat(), None),
        (&[&vlm[..], &["--answer", "Engine"]].concat(), Some("--answer")),
        (&[&vlm[..], &["--answer", "gtpx"]].concat(), Some("--answer")),
        (&[&vlm[..], &["--layout", "qwen", "--notation", "sgf"]].concat(), None),
        (&[&vlm[..], &["--layout", "jsonl"]].concat(), Some("--layout")),
        (&[&vlm[..], &["--notation", "pd"]].concat(), Some("--notation")),
        (&vec!["export", "leela", "--out", "o", "--to", "d", "--policy", "played"], None),
        (&vec!["export", "leela", "--out", "o", "--to", "d", "--policy", "engine"], Some("--policy")),
        (&vec!["export", "katago", "--out", "o", "--to", "d", "--policy", "engine"], None),
        (&vec!["export", "katago", "--out", "o", "--to", "d", "--policy", "ownership"], Some("--policy")),
        (&vec!["sample", "--out", "o", "--split", "val"], None),
        (&vec!["sample", "--out", "o", "--split", "bogus"], Some("--split")),
        (&vec!["convert", "f.sgf", "--to", "sgf"], None),
        (&vec!["convert", "f.sgf", "--to", "gib"], Some("--to")),
    ] {
        match (parse(args), flag) {
            (Ok(_), None) => {}
            (Err(e), Some(flag)) => {
                assert_eq!(e.kind(), clap::error::ErrorKind::InvalidValue, "{args:?}");
                assert_eq!(e.exit_code(), 2, "{args:?}: a usage error");
                assert!(e.to_string().contains(flag), "{args:?}: {e}");
            }
            (r, _) => panic!("{args:?}: {r:?}"),
        }
    }
}

#[test]
fn the_help_lists_every_exit_code() {
    let help = Cli::command().render_long_help().to_string();
    for code in ["0 all inputs read", "1 finished", "2 usage or setup error", "3 a stage failed"] {
        assert!(help.contains(code), "{code:?} not in kibo --help:\n{help}");
    }
}

#[test]
fn the_parser_is_well_formed() {
    // Clap's own checks: no flag defined twice (an alias included), defaults that parse.
    Cli::command().debug_assert();
}
