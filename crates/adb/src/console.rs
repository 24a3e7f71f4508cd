//! The Android emulator's console: a line protocol on the emulator's even port (the serial
//! `emulator-5554` has its console on 5554), which `adb emu …` and the emulator's own tools
//! speak. Each command line is answered by its output and then `OK`, or by `KO: reason`. A
//! console that wants a token greets with `Authentication required`; `auth TOKEN` (the
//! token lives in `~/.emulator_console_auth_token`) lets the other commands in.
//!
//! Both sides are here: `send` (what the android backend's snapshot reset uses) and `serve`
//! (what `guigym adb-device` answers, so that reset is tested against a console).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// The longest line either side takes: a console command is short.
const LINE_MAX: usize = 4096;

/// What a console does with the commands it is sent (all but `auth`, `help` and `quit`).
#[async_trait]
pub trait Console: Send + Sync + 'static {
    /// The command's output (lines, may be empty), or why it failed.
    async fn command(&self, line: &str) -> Result<String, String>;
}

/// One line, without its end; `None` at the end of the stream. Longer lines are an error.
async fn read_line(reader: &mut (impl AsyncBufReadExt + Unpin)) -> std::io::Result<Option<String>> {
    let mut line = Vec::new();
    let n = (&mut *reader).take(LINE_MAX as u64 + 1).read_until(b'\n', &mut line).await?;
    if n == 0 {
        return Ok(None);
    }
    if line.len() > LINE_MAX {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a console line over 4 KiB"));
    }
    let line = String::from_utf8(line).map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "a console line that is not UTF-8"))?;
    Ok(Some(line.trim_end_matches(['\r', '\n']).to_string()))
}

/// Reads an answer: the lines before `OK`, or the reason after `KO:`.
async fn read_answer(reader: &mut (impl AsyncBufReadExt + Unpin)) -> Result<String, String> {
    let mut lines = Vec::new();
    loop {
        let line = read_line(reader).await.map_err(|e| e.to_string())?.ok_or("the console closed the connection")?;
        if line == "OK" {
            return Ok(lines.join("\n"));
        }
        if let Some(reason) = line.strip_prefix("KO:") {
            return Err(reason.trim().to_string());
        }
        if lines.len() > 1000 {
            return Err("the console's answer never ended".into());
        }
        lines.push(line);
    }
}

/// Sends one command to the console at `addr` (with `token`, when the console wants one) and
/// returns its output, within `timeout`.
pub async fn send(addr: &str, token: Option<&str>, command: &str, timeout: Duration) -> Result<String, String> {
    // A line break (or any control character) would end a line early and start another: the
    // rest would run as a command of its own, and the answers fall out of step.
    if command.contains(char::is_control) || token.is_some_and(|t| t.contains(char::is_control)) {
        return Err("a console command and token are one line of printable characters".into());
    }
    let talk = async {
        let socket = TcpStream::connect(addr).await.map_err(|e| format!("emulator console at {addr}: {e}"))?;
        let (read, mut write) = socket.into_split();
        let mut reader = BufReader::new(read);
        read_answer(&mut reader).await.map_err(|e| format!("emulator console at {addr}: {e}"))?;
        if let Some(token) = token {
            write.write_all(format!("auth {token}\r\n").as_bytes()).await.map_err(|e| e.to_string())?;
            read_answer(&mut reader).await.map_err(|e| format!("emulator console at {addr} refused the token: {e}"))?;
        }
        write.write_all(format!("{command}\r\n").as_bytes()).await.map_err(|e| e.to_string())?;
        let out = read_answer(&mut reader).await.map_err(|e| format!("emulator console at {addr}: {command}: {e}"))?;
        let _ = write.write_all(b"quit\r\n").await;
        Ok(out)
    };
    tokio::time::timeout(timeout, talk).await.map_err(|_| format!("emulator console at {addr}: no answer to {command:?} in time"))?
}

/// The token `adb emu` and the emulator share, where the emulator wrote one.
pub fn token_from_home() -> Option<String> {
    let home = std::env::var_os("HOME")?;
    let text = std::fs::read_to_string(std::path::Path::new(&home).join(".emulator_console_auth_token")).ok()?;
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

/// Answers every connection on `listener` as an emulator console; with `token`, only after
/// `auth TOKEN`.
pub async fn serve(listener: TcpListener, console: Arc<dyn Console>, token: Option<String>) -> std::io::Result<()> {
    loop {
        let (socket, _) = listener.accept().await?;
        let (console, token) = (console.clone(), token.clone());
        tokio::spawn(async move {
            let _ = session(socket, console, token).await;
        });
    }
}

async fn session(socket: TcpStream, console: Arc<dyn Console>, token: Option<String>) -> std::io::Result<()> {
    let (read, mut write) = socket.into_split();
    let mut reader = BufReader::new(read);
    let mut authenticated = token.is_none();
    let greeting = if authenticated {
        "Android Console: type 'help' for a list of commands\r\nOK\r\n"
    } else {
        "Android Console: Authentication required\r\nAndroid Console: type 'auth <auth_token>' to authenticate\r\nOK\r\n"
    };
    write.write_all(greeting.as_bytes()).await?;
    loop {
        let line = match read_line(&mut reader).await {
            Ok(Some(line)) => line,
            Ok(None) => return Ok(()),
            Err(e) => {
                // Said before closing, so the other side learns why.
                write.write_all(format!("KO: {e}\r\n").as_bytes()).await?;
                return Err(e);
            }
        };
        let line = line.trim();
        let answer = match line.split_whitespace().next().unwrap_or("") {
            "" => continue,
            // Any line break Unicode knows (U+2028 too) would read as two lines elsewhere.
            _ if line.contains(|c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')) => Err("a control character in the command".into()),
            "quit" | "exit" => return Ok(()),
            "auth" => {
                if token.as_deref() == Some(line["auth".len()..].trim()) || token.is_none() {
                    authenticated = true;
                    Ok(String::new())
                } else {
                    Err("authentication token does not match ~/.emulator_console_auth_token".to_string())
                }
            }
            _ if !authenticated => Err("authentication required".into()),
            "help" => Ok("avd snapshot list|save NAME|load NAME|delete NAME\r\nkill".into()),
            _ => console.command(line).await,
        };
        let text = match answer {
            Ok(out) if out.is_empty() => "OK\r\n".to_string(),
            Ok(out) => format!("{}\r\nOK\r\n", out.replace('\n', "\r\n")),
            Err(reason) => format!("KO: {}\r\n", reason.replace(['\r', '\n'], " ")),
        };
        write.write_all(text.as_bytes()).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;

    #[async_trait]
    impl Console for Echo {
        async fn command(&self, line: &str) -> Result<String, String> {
            match line.strip_prefix("echo ") {
                Some(rest) => Ok(rest.to_string()),
                None => Err(format!("unknown command {line:?}")),
            }
        }
    }

    #[tokio::test]
    async fn commands_need_the_token_and_answers_come_back() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(serve(listener, Arc::new(Echo), Some("s3cret".into())));
        let t = Duration::from_secs(5);
        assert_eq!(send(&addr, Some("s3cret"), "echo hello", t).await.unwrap(), "hello");
        assert!(send(&addr, Some("wrong"), "echo hello", t).await.unwrap_err().contains("refused the token"));
        assert!(send(&addr, None, "echo hello", t).await.unwrap_err().contains("authentication required"));
        assert!(send(&addr, Some("s3cret"), "nonsense", t).await.unwrap_err().contains("unknown command"));
        assert!(send(&addr, Some("s3cret"), "echo a\nkill", t).await.is_err(), "one line only");
        assert!(send(&addr, Some("s3cret\r\nkill"), "echo a", t).await.is_err(), "a token is one line too");

        // What `send` refuses to write, a raw client may: a control character and an overlong
        // line are answered with KO, not obeyed or dropped without a word.
        let socket = TcpStream::connect(&addr).await.unwrap();
        let (read, mut write) = socket.into_split();
        let mut reader = BufReader::new(read);
        read_answer(&mut reader).await.unwrap();
        write.write_all(b"auth s3cret\r\necho a\x07b\r\n").await.unwrap();
        read_answer(&mut reader).await.unwrap();
        assert!(read_answer(&mut reader).await.unwrap_err().contains("control character"));
        write.write_all("echo a\u{2028}kill\r\n".as_bytes()).await.unwrap();
        assert!(read_answer(&mut reader).await.unwrap_err().contains("control character"), "a Unicode line break too");
        write.write_all(format!("echo {}\r\n", "x".repeat(LINE_MAX)).as_bytes()).await.unwrap();
        assert!(read_answer(&mut reader).await.unwrap_err().contains("4 KiB"));
        assert!(send("127.0.0.1:1", None, "echo", t).await.unwrap_err().contains("127.0.0.1:1"));
    }
}
