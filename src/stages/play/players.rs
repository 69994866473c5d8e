//! The players a match is given (`--player NAME=SPEC`), and how each is made for a game.
//!
//! | SPEC | player |
//! |---|---|
//! | `gtp:CMD ARGS…` | any GTP engine, started for each game ([`super::gtp`]) |
//! | `katago:VISITS` | `make katago`'s KataGo and net through GTP, at that many visits |
//! | `random` | a uniformly random legal move, never into its own one-point eye ([`super::random`]) |
//! | `openai:URL [model=M] [api_key_env=VAR]` | an OpenAI-compatible chat-completions endpoint shown `kibo export vlm`'s picture and prompt ([`super::openai`]) |

use std::path::PathBuf;
use std::time::Duration;

use super::gtp::{GtpCommand, GtpPlayer};
use super::player::Player;
use super::random::RandomPlayer;
use crate::analysis::KatagoSettings;

/// What plays.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Spec {
    /// A GTP engine: the program and its arguments.
    Gtp(Vec<String>),
    /// KataGo at this many visits.
    Katago(u32),
    /// The random player.
    Random,
    /// An OpenAI-compatible chat-completions endpoint, with this player's `model` and
    /// `api_key_env` where the spec gives them (else the match's).
    Openai { url: String, model: Option<String>, api_key_env: Option<String> },
}

impl std::str::FromStr for Spec {
    type Err = String;
    fn from_str(s: &str) -> Result<Spec, String> {
        if s == "random" {
            return Ok(Spec::Random);
        }
        if let Some(cmd) = s.strip_prefix("gtp:") {
            let argv =
                shlex::split(cmd).filter(|a| !a.is_empty()).ok_or_else(|| format!("{s:?}: unbalanced quotes"))?;
            if argv.is_empty() {
                return Err(format!("{s:?}: gtp: needs a command"));
            }
            return Ok(Spec::Gtp(argv));
        }
        if let Some(v) = s.strip_prefix("katago:") {
            let visits: u32 = v.parse().map_err(|_| format!("{s:?}: katago:VISITS takes a whole number of visits"))?;
            if visits == 0 {
                return Err(format!("{s:?}: katago:VISITS needs at least 1 visit"));
            }
            return Ok(Spec::Katago(visits));
        }
        if let Some(rest) = s.strip_prefix("openai:") {
            let mut words = rest.split_whitespace();
            let url = words.next().ok_or_else(|| format!("{s:?}: openai: needs the endpoint's URL"))?.to_string();
            let (mut model, mut api_key_env) = (None, None);
            for w in words {
                match w.split_once('=') {
                    Some(("model", v)) => model = Some(v.to_string()),
                    Some(("api_key_env", v)) => api_key_env = Some(v.to_string()),
                    _ => {
                        return Err(format!("{s:?}: after the URL, expected model=NAME or api_key_env=VAR, not {w:?}"))
                    }
                }
            }
            return Ok(Spec::Openai { url, model, api_key_env });
        }
        Err(format!("{s:?}: expected gtp:CMD ARGS…, katago:VISITS, openai:URL or random"))
    }
}

/// A named player of the match.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlayerDef {
    pub name: String,
    pub spec: Spec,
}

impl std::str::FromStr for PlayerDef {
    type Err = String;
    fn from_str(s: &str) -> Result<PlayerDef, String> {
        let (name, spec) = s.split_once('=').ok_or_else(|| format!("{s:?}: expected NAME=SPEC"))?;
        let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !ok {
            return Err(format!("{name:?}: a player's name is letters, digits, `-`, `_` and `.`"));
        }
        Ok(PlayerDef { name: name.to_string(), spec: spec.parse()? })
    }
}

/// What making a player needs besides its spec.
#[derive(Clone, Debug)]
pub struct PlayerEnv {
    /// The longest wait for one answer.
    pub timeout: Duration,
    /// `DIR/log/`: engines' standard error, endpoints' requests.
    pub log_dir: PathBuf,
    /// KataGo's binary and net (`make katago`'s unless given) for `katago:VISITS`.
    pub katago: KatagoSettings,
    /// The `openai:` players' options (model, key, timeout, retries, the picture).
    pub openai: super::openai::OpenaiOptions,
}

/// The GTP command of `katago:VISITS`: `katago gtp` with `make katago`'s net and the GTP
/// example config beside its binary, at `visits` visits, one search thread, no pondering,
/// its log in `DIR/log/katago/`.
pub fn katago_argv(k: &KatagoSettings, visits: u32, log_dir: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let config =
        k.binary.parent().map(|d| d.join("configs/gtp_example.cfg")).filter(|c| c.is_file()).ok_or_else(|| {
            anyhow::Error::from(crate::error::SetupError(format!(
                "katago:{visits}: no configs/gtp_example.cfg beside {} (run `make katago`)",
                k.binary.display()
            )))
        })?;
    for (what, p) in [("binary", &k.binary), ("net", &k.model)] {
        if !p.is_file() {
            return crate::error::setup(format!(
                "katago:{visits}: KataGo's {what} {} is missing (run `make katago`)",
                p.display()
            ));
        }
    }
    let overrides = format!(
        "maxVisits={visits},numSearchThreads=1,ponderingEnabled=false,logToStderr=false,logDir={}",
        log_dir.join("katago").display()
    );
    Ok(vec![
        k.binary.display().to_string(),
        "gtp".into(),
        "-model".into(),
        k.model.display().to_string(),
        "-config".into(),
        config.display().to_string(),
        "-override-config".into(),
        overrides,
    ])
}

/// Checks `def` before any game (a setup error, exit 2, names the player): a GTP program
/// that cannot be found, `katago:` without `make katago`'s files, an `openai:` URL or
/// options the player refuses. Nothing is started.
pub fn check(def: &PlayerDef, env: &PlayerEnv) -> anyhow::Result<()> {
    let named = |e: anyhow::Error| {
        let msg = format!("--player {}: {e:#}", def.name);
        anyhow::Error::from(crate::error::SetupError(msg))
    };
    match &def.spec {
        Spec::Random => Ok(()),
        Spec::Gtp(argv) => {
            let prog = std::path::Path::new(&argv[0]);
            let found = if prog.components().count() > 1 {
                prog.is_file()
            } else {
                std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file()))
            };
            if found {
                Ok(())
            } else {
                Err(named(anyhow::anyhow!("the GTP program {} is not found", prog.display())))
            }
        }
        Spec::Katago(v) => katago_argv(&env.katago, *v, &env.log_dir).map(|_| ()).map_err(named),
        Spec::Openai { .. } => make(def, env).map(|_| ()).map_err(named),
    }
}

/// Makes `def`'s player for one game.
pub fn make(def: &PlayerDef, env: &PlayerEnv) -> anyhow::Result<Box<dyn Player>> {
    let gtp = |argv: Vec<String>| -> anyhow::Result<Box<dyn Player>> {
        let cmd =
            GtpCommand { argv, stderr: Some(env.log_dir.join(format!("{}.stderr", def.name))), timeout: env.timeout };
        Ok(Box::new(GtpPlayer::new(cmd)?))
    };
    match &def.spec {
        Spec::Random => Ok(Box::new(RandomPlayer::new())),
        Spec::Gtp(argv) => gtp(argv.clone()),
        Spec::Katago(v) => gtp(katago_argv(&env.katago, *v, &env.log_dir)?),
        Spec::Openai { url, model, api_key_env } => {
            let mut o = env.openai.clone();
            o.model = model.clone().unwrap_or(o.model);
            o.api_key_env = api_key_env.clone().unwrap_or(o.api_key_env);
            Ok(Box::new(super::openai::make(url, &o, &env.log_dir.join(&def.name))?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_are_named() {
        let d: PlayerDef = "gnugo=gtp:/usr/games/gnugo --mode gtp --level 1".parse().expect("parses");
        assert_eq!(d.name, "gnugo");
        assert_eq!(
            d.spec,
            Spec::Gtp(vec!["/usr/games/gnugo".into(), "--mode".into(), "gtp".into(), "--level".into(), "1".into()])
        );
        let q: PlayerDef = r#"net=gtp:python "my dir/gtp.py""#.parse().expect("parses");
        assert_eq!(q.spec, Spec::Gtp(vec!["python".into(), "my dir/gtp.py".into()]));
        assert_eq!("k=katago:8".parse::<PlayerDef>().expect("parses").spec, Spec::Katago(8));
        assert_eq!("r=random".parse::<PlayerDef>().expect("parses").spec, Spec::Random);
        assert_eq!(
            "m=openai:http://h:8000/v1/chat/completions model=qwen".parse::<PlayerDef>().expect("parses").spec,
            Spec::Openai {
                url: "http://h:8000/v1/chat/completions".into(),
                model: Some("qwen".into()),
                api_key_env: None
            }
        );
        for bad in [
            "m=openai:",
            "m=openai:http://h x=1",
            "random",
            "=random",
            "a b=random",
            "k=katago:0",
            "k=katago:x",
            "g=gtp:",
            "x=foo",
        ] {
            assert!(bad.parse::<PlayerDef>().is_err(), "{bad}");
        }
    }
}
