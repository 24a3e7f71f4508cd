//! The home folder every instance starts from: the usual folders, a quiet shell, and settings
//! that keep applications from asking first-run questions.

use std::path::PathBuf;

const FOLDERS: &[&str] = &["Desktop", "Documents", "Downloads", "Music", "Pictures", "Videos", ".config", ".local/share"];

const BASHRC: &str = "# guigym desktop instance\nPS1='$ '\nHISTFILE=/dev/null\n";

/// GTK's settings (3, then 2): carets that do not blink and no animations. A screen that
/// changes by itself makes two screenshots of one state differ, and keeps the wait for a
/// still screen from ending: GTK's caret blinks every 600 ms, as long as a ready window
/// must stay still (see `Instance::launch`).
const GTK3_SETTINGS: &str = "[Settings]\ngtk-cursor-blink = false\ngtk-enable-animations = false\n";
const GTK2_RC: &str = "gtk-cursor-blink = 0\ngtk-enable-animations = 0\n";

/// VLC's settings as a first start leaves them: no question about fetching media
/// information from the network. VLC writes all its settings here when its preferences are
/// saved (OSWorld's VLC getters and metrics read this file).
const VLCRC: &str =
    "###\n###  vlc 3.0 (guigym's first settings)\n###\n\n[qt] # Qt interface\nqt-privacy-ask=0\n\n[core] # core program\nmetadata-network-access=0\n";

/// An application and the kinds of file it opens, as on OSWorld's Ubuntu (where `xdg-open`
/// opens them so): by extension for the `open` step (`opener`), by MIME type for `xdg-open`,
/// the file manager and GTK's "open with" (the home's `mimeapps.list`).
struct Opener {
    extensions: &'static [&'static str],
    mime_types: &'static [&'static str],
    desktop_entry: &'static str,
    command: &'static [&'static str],
}

const OPENERS: &[Opener] = &[
    Opener {
        extensions: &["xlsx", "xls", "ods", "csv"],
        mime_types: &["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.oasis.opendocument.spreadsheet", "text/csv"],
        desktop_entry: "libreoffice-calc.desktop",
        command: &["soffice", "--calc", "--norestore", "--nologo"],
    },
    Opener {
        extensions: &["docx", "doc", "odt", "rtf"],
        mime_types: &["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.oasis.opendocument.text"],
        desktop_entry: "libreoffice-writer.desktop",
        command: &["soffice", "--writer", "--norestore", "--nologo"],
    },
    Opener {
        extensions: &["pptx", "ppt", "odp"],
        mime_types: &["application/vnd.openxmlformats-officedocument.presentationml.presentation", "application/vnd.oasis.opendocument.presentation"],
        desktop_entry: "libreoffice-impress.desktop",
        command: &["soffice", "--impress", "--norestore", "--nologo"],
    },
    Opener { extensions: &["pdf"], mime_types: &["application/pdf"], desktop_entry: "org.gnome.Evince.desktop", command: &["evince"] },
    Opener {
        extensions: &["png", "jpg", "jpeg", "gif", "bmp", "webp", "tif", "tiff", "svg"],
        mime_types: &["image/png", "image/jpeg", "image/gif", "image/bmp", "image/webp", "image/tiff", "image/svg+xml"],
        desktop_entry: "org.gnome.eog.desktop",
        command: &["eog"],
    },
    Opener {
        extensions: &["mp4", "mkv", "webm", "avi", "mov", "mp3", "wav", "flac", "ogg", "m4a"],
        mime_types: &[
            "video/mp4",
            "video/x-matroska",
            "video/webm",
            "video/x-msvideo",
            "video/quicktime",
            "audio/mpeg",
            "audio/x-wav",
            "audio/flac",
            "audio/ogg",
            "audio/mp4",
        ],
        desktop_entry: "vlc.desktop",
        command: &["vlc"],
    },
    // Folders in the file manager; any other file in the text editor.
    Opener { extensions: &[], mime_types: &["inode/directory"], desktop_entry: "pcmanfm.desktop", command: &["pcmanfm"] },
    Opener { extensions: &[], mime_types: &["text/plain"], desktop_entry: "org.xfce.mousepad.desktop", command: &["mousepad"] },
];

/// The command line that opens `path` as OSWorld's `open` step does (`xdg-open` on its Ubuntu).
pub fn opener(path: &std::path::Path) -> Vec<String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_lowercase();
    let by_extension = OPENERS.iter().find(|o| o.extensions.contains(&ext.as_str()));
    const FOLDER: &[&str] = &["pcmanfm"];
    const OTHER: &[&str] = &["mousepad"];
    let command = by_extension.map_or(if path.is_dir() { FOLDER } else { OTHER }, |o| o.command);
    command.iter().map(|a| a.to_string()).chain([path.display().to_string()]).collect()
}

/// The home's `~/.config/mimeapps.list`: every kind of `OPENERS` by its MIME type.
fn mimeapps() -> String {
    let mut list = String::from("[Default Applications]\n");
    for o in OPENERS {
        for mime in o.mime_types {
            list.push_str(&format!("{mime}={}\n", o.desktop_entry));
        }
    }
    list
}

/// The template, made once per process (under the instance base folder): every provider of
/// the process shares it. The first call also removes what dead processes left there.
pub fn template() -> Result<PathBuf, String> {
    static TEMPLATE: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    TEMPLATE
        .get_or_init(|| {
            crate::session::remove_stale();
            make_template()
        })
        .clone()
}

fn make_template() -> Result<PathBuf, String> {
    let dir = crate::session::base_dir().join(format!("template-{}", std::process::id()));
    let build = || -> std::io::Result<()> {
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        for f in FOLDERS {
            std::fs::create_dir_all(dir.join(f))?;
        }
        std::fs::write(dir.join(".bashrc"), BASHRC)?;
        std::fs::create_dir_all(dir.join(".config/gtk-3.0"))?;
        std::fs::write(dir.join(".config/gtk-3.0/settings.ini"), GTK3_SETTINGS)?;
        std::fs::write(dir.join(".gtkrc-2.0"), GTK2_RC)?;
        std::fs::create_dir_all(dir.join(".config/vlc"))?;
        std::fs::write(dir.join(".config/vlc/vlcrc"), VLCRC)?;
        std::fs::write(dir.join(".config/mimeapps.list"), mimeapps())?;
        Ok(())
    };
    build().map_err(|e| format!("making the home template in {}: {e}", dir.display()))?;
    office_profile(&dir)?;
    gimp_profile(&dir)?;
    thunderbird_profile(&dir)?;
    Ok(dir)
}

/// LibreOffice's user profile, made once in the template: without it every reset would be a
/// first start (profile creation, a welcome dialog, tips), seconds slower and unlike the next.
fn office_profile(home: &std::path::Path) -> Result<(), String> {
    if crate::session::which("soffice").is_none() {
        return Ok(());
    }
    let status = first_start(home, "LibreOffice", "soffice", &["--headless", "--terminate_after_init", "--norestore", "--nologo"])?;
    let registry = home.join(".config/libreoffice/4/user/registrymodifications.xcu");
    let text = std::fs::read_to_string(&registry).map_err(|e| format!("LibreOffice made no profile ({status}): {}: {e}", registry.display()))?;
    let quiet = [
        ("/org.openoffice.Office.Common/Misc", "ShowTipOfTheDay", "false"),
        ("/org.openoffice.Office.Common/Misc", "FirstRun", "false"),
        ("/org.openoffice.Setup/Office", "ooSetupInstCompleted", "true"),
        ("/org.openoffice.Office.Common/Save/Document", "WarnAlienFormat", "false"),
        ("/org.openoffice.Office.Recovery/AutoSave", "Enabled", "false"),
        // Typing goes in as typed: no completion from the column's other entries or the
        // document's words, no autocorrection.
        ("/org.openoffice.Office.Calc/Input", "AutoInput", "false"),
        ("/org.openoffice.Office.Writer/AutoFunction/Completion", "Enable", "false"),
        ("/org.openoffice.Office.Writer/AutoFunction/Format/Option", "CapitalStartSentence", "false"),
        ("/org.openoffice.Office.Common/AutoCorrect", "TwoCapitalsAtStart", "false"),
        ("/org.openoffice.Office.Common/AutoCorrect", "CapitalAtStartSentence", "false"),
        ("/org.openoffice.Office.Common/AutoCorrect", "ChangeUnderlineWeight", "false"),
        ("/org.openoffice.Office.Common/AutoCorrect", "SetInetAttribute", "false"),
        ("/org.openoffice.Office.Common/AutoCorrect", "ChangeOrdinalNumber", "false"),
        ("/org.openoffice.Office.Common/AutoCorrect", "ChangeDash", "false"),
        ("/org.openoffice.Office.Common/AutoCorrect", "UseReplacementTable", "false"),
        ("/org.openoffice.Office.Common/AutoCorrect", "ReplaceSingleQuote", "false"),
        ("/org.openoffice.Office.Common/AutoCorrect", "ReplaceDoubleQuote", "false"),
    ];
    let items: String = quiet
        .iter()
        .map(|(path, name, value)| format!("<item oor:path=\"{path}\"><prop oor:name=\"{name}\" oor:op=\"fuse\"><value>{value}</value></prop></item>\n"))
        .collect();
    let text = text.replacen("</oor:items>", &format!("{items}</oor:items>"), 1);
    std::fs::write(&registry, text).map_err(|e| format!("{}: {e}", registry.display()))
}

/// GIMP's profile (`~/.config/GIMP/2.10`), made once in the template by a start without a
/// window: a first start queries every plug-in and writes `pluginrc`, seconds that every reset
/// would otherwise spend before GIMP shows its window.
fn gimp_profile(home: &std::path::Path) -> Result<(), String> {
    if crate::session::which("gimp").is_none() {
        return Ok(());
    }
    let args = ["--no-interface", "--no-data", "--no-fonts", "--batch-interpreter=plug-in-script-fu-eval", "--batch", "(gimp-quit 0)"];
    let status = first_start(home, "GIMP", "gimp", &args)?;
    let plugins = home.join(".config/GIMP/2.10/pluginrc");
    if !plugins.is_file() {
        return Err(format!("GIMP made no profile ({status}): {} is missing", plugins.display()));
    }
    Ok(())
}

/// Thunderbird's profile (`~/.thunderbird/guigym.default-release`, the default in
/// `profiles.ini`): the local folders as its one account, so that it opens on them and not on
/// the account set-up; no start page, default-client question, data-reporting notice or
/// update; online, always (it would otherwise follow the instance's network link, and two
/// resets could differ); its widgets shown to the accessibility bus (Gecko shows them only when
/// asked: `accessibility.force_disabled` at -1 asks, for Thunderbird alone). Written as
/// preferences of the profile, not `user.js`, so that what a task or an agent changes stays
/// changed. Thunderbird makes the rest of the profile when it first starts.
fn thunderbird_profile(home: &std::path::Path) -> Result<(), String> {
    let dir = home.join(".thunderbird");
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(dir.join(THUNDERBIRD_PROFILE))?;
        std::fs::write(
            dir.join("profiles.ini"),
            format!("[Profile0]\nName=default-release\nIsRelative=1\nPath={THUNDERBIRD_PROFILE}\nDefault=1\n\n[General]\nStartWithLastProfile=1\nVersion=2\n"),
        )?;
        std::fs::write(dir.join(THUNDERBIRD_PROFILE).join("prefs.js"), THUNDERBIRD_PREFS)
    };
    write().map_err(|e| format!("making Thunderbird's profile in {}: {e}", dir.display()))
}

/// The home template's Thunderbird profile folder.
pub const THUNDERBIRD_PROFILE: &str = "guigym.default-release";

const THUNDERBIRD_PREFS: &str = r#"// Mozilla User Preferences (guigym's first profile)
user_pref("mail.accountmanager.accounts", "account1");
user_pref("mail.accountmanager.localfoldersserver", "server1");
user_pref("mail.account.account1.server", "server1");
user_pref("mail.server.server1.type", "none");
user_pref("mail.server.server1.hostname", "Local Folders");
user_pref("mail.server.server1.name", "Local Folders");
user_pref("mail.server.server1.userName", "nobody");
user_pref("mail.server.server1.directory-rel", "[ProfD]Mail/Local Folders");
user_pref("mailnews.start_page.enabled", false);
user_pref("mail.shell.checkDefaultClient", false);
user_pref("mail.provider.enabled", false);
user_pref("datareporting.policy.dataSubmissionPolicyBypassNotification", true);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.enabled", false);
user_pref("app.donation.eoy.version.viewed", 999);
user_pref("mail.rights.version", 1);
user_pref("offline.startup_state", 2);
user_pref("offline.autoDetect", false);
user_pref("network.manage-offline-status", false);
user_pref("accessibility.force_disabled", -1);
"#;

/// Runs an application once without a window, in `home`, so that it makes its profile there.
fn first_start(home: &std::path::Path, name: &str, program: &str, args: &[&str]) -> Result<std::process::ExitStatus, String> {
    std::process::Command::new(program)
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("LANG", "C.UTF-8")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("making {name}'s profile: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_opens_in_the_application_ubuntu_gives_its_kind() {
        let open = |p: &str| opener(std::path::Path::new(p));
        assert_eq!(open("/home/user/Desktop/Report.PDF"), ["evince", "/home/user/Desktop/Report.PDF"]);
        assert_eq!(open("/home/user/a.jpeg")[0], "eog");
        assert_eq!(open("/home/user/video.mp4")[0], "vlc");
        assert_eq!(open("/home/user/b.xlsx")[..2], ["soffice", "--calc"]);
        assert_eq!(open("/home/user/notes.txt")[0], "mousepad");
        assert_eq!(open("/home/user/no-extension")[0], "mousepad");
        assert_eq!(open("/")[0], "pcmanfm");
        // xdg-open is told the same, by MIME type.
        let list = mimeapps();
        assert!(list.starts_with("[Default Applications]\n"));
        for line in ["application/pdf=org.gnome.Evince.desktop", "image/png=org.gnome.eog.desktop", "video/mp4=vlc.desktop", "inode/directory=pcmanfm.desktop"]
        {
            assert!(list.lines().any(|l| l == line), "{line} in\n{list}");
        }
    }
}
