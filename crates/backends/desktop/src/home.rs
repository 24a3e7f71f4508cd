//! The home folder every instance starts from: the usual folders, a quiet shell, and settings
//! that keep applications from asking first-run questions.

use std::path::PathBuf;

const FOLDERS: &[&str] = &["Desktop", "Documents", "Downloads", "Music", "Pictures", "Videos", ".config", ".local/share"];

const BASHRC: &str = "# guigym desktop instance\nPS1='$ '\nHISTFILE=/dev/null\n";

/// Makes the template once per process (under the instance base folder) and returns it.
pub fn make_template() -> Result<PathBuf, String> {
    let dir = crate::session::base_dir().join(format!("template-{}", std::process::id()));
    let build = || -> std::io::Result<()> {
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        for f in FOLDERS {
            std::fs::create_dir_all(dir.join(f))?;
        }
        std::fs::write(dir.join(".bashrc"), BASHRC)?;
        Ok(())
    };
    build().map_err(|e| format!("making the home template in {}: {e}", dir.display()))?;
    Ok(dir)
}
