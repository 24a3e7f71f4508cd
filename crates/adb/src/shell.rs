//! Command lines as a device's shell reads them, for the commands agents send over
//! `adb shell`: words with single and double quotes and backslash escapes, `;`, `&&` and `||`
//! between commands, and `|` into a filter (`grep`, `head`, `tail`, `wc -l`). Nothing is
//! expanded or run as a program: each command is answered by the device that reads it.

/// How two commands are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// `;` or the end: the next runs whatever happened.
    Always,
    /// `&&`: the next runs if this one succeeded.
    And,
    /// `||`: the next runs if this one failed.
    Or,
}

/// A command, the filters its output goes through, and how the next command is joined to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    pub commands: Vec<Vec<String>>,
    pub then: Join,
}

/// Splits a command line. An unclosed quote is an error, as the shell says.
pub fn parse(line: &str) -> Result<Vec<Pipeline>, String> {
    let mut pipelines = Vec::new();
    let mut commands: Vec<Vec<String>> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    let end_word = |word: &mut String, in_word: &mut bool, words: &mut Vec<String>| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("syntax error: unterminated quoted string".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("syntax error: unterminated quoted string".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("syntax error: unterminated quoted string".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c if c.is_whitespace() => end_word(&mut word, &mut in_word, &mut words),
            ';' | '&' | '|' => {
                end_word(&mut word, &mut in_word, &mut words);
                let doubled = chars.peek() == Some(&c);
                if doubled {
                    chars.next();
                }
                let join = match (c, doubled) {
                    ('|', false) => {
                        if words.is_empty() {
                            return Err("syntax error: '|' unexpected".into());
                        }
                        commands.push(std::mem::take(&mut words));
                        continue;
                    }
                    (';', false) => Join::Always,
                    ('&', true) => Join::And,
                    ('|', true) => Join::Or,
                    // `&` alone (run in the background) runs in the foreground here.
                    ('&', false) => Join::Always,
                    _ => return Err(format!("syntax error: '{c}{c}' unexpected")),
                };
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
                if commands.is_empty() {
                    if join == Join::Always {
                        continue;
                    }
                    return Err(format!("syntax error: '{c}{c}' unexpected"));
                }
                pipelines.push(Pipeline { commands: std::mem::take(&mut commands), then: join });
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut words);
    if !words.is_empty() {
        commands.push(words);
    }
    if !commands.is_empty() {
        pipelines.push(Pipeline { commands, then: Join::Always });
    }
    Ok(pipelines)
}

/// A filter after `|`: what it keeps of `input`; `None` when it is not a filter this shell
/// knows.
pub fn filter(words: &[String], input: &str) -> Option<Result<String, String>> {
    let (name, args) = words.split_first()?;
    let lines = input.lines();
    Some(match name.as_str() {
        "grep" => {
            let mut ignore_case = false;
            let mut invert = false;
            let mut pattern = None;
            for a in args {
                match a.as_str() {
                    flags if flags.starts_with('-') && pattern.is_none() && flags.len() > 1 => {
                        ignore_case |= flags.contains('i');
                        invert |= flags.contains('v');
                    }
                    p => pattern = Some(p.to_string()),
                }
            }
            let Some(pattern) = pattern else { return Some(Err("usage: grep [-iv] PATTERN".into())) };
            // Alternatives written as `a|b` (grep -E) match either.
            let wanted: Vec<String> = pattern.split('|').map(|p| if ignore_case { p.to_lowercase() } else { p.to_string() }).collect();
            let keep = |l: &str| {
                let l = if ignore_case { l.to_lowercase() } else { l.to_string() };
                wanted.iter().any(|w| l.contains(w.as_str())) != invert
            };
            Ok(lines.filter(|l| keep(l)).map(|l| format!("{l}\n")).collect())
        }
        "head" | "tail" => {
            let n = match args {
                [flag, n] if flag == "-n" => n.parse::<usize>().ok(),
                [n] => n.trim_start_matches('-').parse::<usize>().ok(),
                [] => Some(10),
                _ => None,
            };
            let Some(n) = n else { return Some(Err(format!("usage: {name} [-n N]"))) };
            let all: Vec<&str> = lines.collect();
            let kept = if name == "head" { &all[..n.min(all.len())] } else { &all[all.len().saturating_sub(n)..] };
            Ok(kept.iter().map(|l| format!("{l}\n")).collect())
        }
        "wc" if args.iter().any(|a| a == "-l") => Ok(format!("{}\n", lines.count())),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<Vec<String>>> {
        parse(line).unwrap().into_iter().map(|p| p.commands).collect()
    }

    #[test]
    fn words_quotes_and_joins_read_as_a_shell_reads_them() {
        assert_eq!(words("input tap 10 20"), vec![vec![vec!["input", "tap", "10", "20"]]]);
        assert_eq!(words("input text 'it''s'"), vec![vec![vec!["input", "text", "its"]]]);
        assert_eq!(words(r#"input text "say \"hi\" now""#), vec![vec![vec!["input", "text", r#"say "hi" now"#]]]);
        assert_eq!(words(r"input text a\ b"), vec![vec![vec!["input", "text", "a b"]]]);
        assert_eq!(words("echo ''"), vec![vec![vec!["echo", ""]]]);
        let p = parse("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'; echo done && true || false").unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(p[0].commands, vec![vec!["dumpsys", "window"], vec!["grep", "-E", "mCurrentFocus|mFocusedApp"]]);
        assert_eq!((p[0].then, p[1].then, p[2].then, p[3].then), (Join::Always, Join::And, Join::Or, Join::Always));
        assert!(parse("echo 'open").is_err());
        assert!(parse("| grep x").is_err());
        assert!(parse("&& true").is_err());
        assert_eq!(parse("   ").unwrap(), vec![]);
    }

    #[test]
    fn filters_keep_what_they_should() {
        let text = "alpha\nBeta\ngamma\n";
        let run = |line: &str| filter(&parse(line).unwrap()[0].commands[0], text).unwrap().unwrap();
        assert_eq!(run("grep a"), "alpha\nBeta\ngamma\n");
        assert_eq!(run("grep -i beta"), "Beta\n");
        assert_eq!(run("grep -v a"), "");
        assert_eq!(run("grep -E 'alpha|gamma'"), "alpha\ngamma\n");
        assert_eq!(run("head -n 1"), "alpha\n");
        assert_eq!(run("tail -1"), "gamma\n");
        assert_eq!(run("wc -l"), "3\n");
        assert!(filter(&["sort".to_string()], text).is_none());
    }
}
