//! Files: folders as tabs, file details, rename with validation, move to another folder,
//! star, and deletion behind a confirmation.

use guigym_ui::{TextStyle, View};

use super::{confirm, id_after, open_item, screen, split_route, App, UiEvent};
use crate::state::capitalize;
use crate::state::{AppData, DeviceState};
use crate::world::World;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    pub name: String,
    pub folder: String,
    pub size_kb: u32,
    pub starred: bool,
}

/// Files: documents of the scenario and a few downloads and pictures.
pub fn install(w: &World, d: &mut AppData, rng: &mut Rng) {
    let files = [
        (format!("{} plan.pdf", capitalize(w.scenario.name())), 0),
        (format!("Invoice {}.pdf", rng.range(1000, 9999)), 0),
        ("CV.docx".to_string(), 0),
        (format!("Ticket {}.pdf", w.trip_city), 1),
        ("setup.zip".to_string(), 1),
        ("Menu Luigi's.pdf".to_string(), 1),
        (format!("IMG_{}.jpg", rng.range(1000, 4999)), 2),
        (format!("IMG_{}.jpg", rng.range(5000, 9999)), 2),
        ("Screenshot.png".to_string(), 2),
    ];
    for (name, folder) in files {
        d.files.insert(FileEntry { name, folder: FOLDERS[folder].to_string(), size_kb: rng.range(12, 4800) as u32, starred: false });
    }
}

pub const APP: App = App { name: "Files", icon: guigym_ui::Pictogram::Folder, color: [100, 116, 139], root: "folder:0", view, handle };

pub const FOLDERS: [&str; 3] = ["Documents", "Downloads", "Pictures"];

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("file", Some(id)) => match s.data.files.get(id) {
            Some(f) => {
                let dialog = match s.ui.dialog.as_deref() {
                    Some("delete") => Some(confirm("delete_dialog", "Delete file?", &format!("{} will be deleted.", f.name), "confirm_delete", "Delete")),
                    Some("move") => Some(View::dialog(
                        "move_dialog",
                        "Move to",
                        FOLDERS
                            .iter()
                            .filter(|d| **d != f.folder)
                            .map(|d| View::button(format!("move_to:{d}"), *d))
                            .chain([View::button("dialog_cancel", "Cancel")]),
                    )),
                    _ => None,
                };
                screen(
                    &f.name,
                    vec![
                        View::styled("Folder", TextStyle::Caption),
                        View::text(&f.folder).id("folder"),
                        View::styled("Size", TextStyle::Caption),
                        View::text(format!("{} KB", f.size_kb)).id("size"),
                        View::switch("star", "Starred", f.starred),
                        View::row([View::button("rename", "Rename"), View::button("move", "Move")]),
                        View::danger_button("delete", "Delete"),
                    ],
                    dialog,
                )
            }
            None => screen("File", vec![View::text("This file no longer exists.")], None),
        },
        ("rename", _) => screen("Rename", vec![View::field("name", s.field("name"), "File name", focus == Some("name")), View::button("save", "Save")], None),
        (_, tab) => {
            let tab = tab.unwrap_or(0) as usize % FOLDERS.len();
            let mut rows: Vec<(u32, &FileEntry)> = s.data.files.iter().filter(|(_, f)| f.folder == FOLDERS[tab]).collect();
            rows.sort_by(|a, b| a.1.name.cmp(&b.1.name));
            screen(
                "Files",
                vec![
                    View::tabs("folders", [("tab:0", FOLDERS[0]), ("tab:1", FOLDERS[1]), ("tab:2", FOLDERS[2])], tab),
                    View::list(
                        "files",
                        s.scroll("files"),
                        rows.into_iter()
                            .map(|(id, f)| View::item_with(format!("file:{id}"), &f.name, format!("{} KB", f.size_kb), if f.starred { "★" } else { "" })),
                    ),
                ],
                None,
            )
        }
    }
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(tab) = id_after(id, "tab:") {
        s.reset_to(format!("folder:{tab}"));
        return format!("showing {}", FOLDERS[tab as usize % 3]);
    }
    if let Some(opened) = open_item(s, id, &[("file:", "file", "opened file")]) {
        return opened;
    }
    let file = arg.and_then(|fid| s.data.files.get(fid)).cloned();
    match (screen, id.as_str()) {
        ("file", "star") => {
            let Some(f) = arg.and_then(|fid| s.data.files.get_mut(fid)) else { return String::new() };
            f.starred = !f.starred;
            if f.starred { "starred" } else { "unstarred" }.into()
        }
        ("file", "rename") => {
            let Some(f) = file else { return String::new() };
            s.push(format!("rename:{}", arg.unwrap_or(0)));
            s.ui.fields.insert("name".into(), f.name);
            "rename form".into()
        }
        ("file", "move") => {
            s.ui.dialog = Some("move".into());
            "choose a folder".into()
        }
        ("file", "delete") => {
            s.ui.dialog = Some("delete".into());
            "asked to confirm deletion".into()
        }
        ("file", "confirm_delete") => {
            if let Some(fid) = arg {
                s.data.files.items.remove(&fid);
            }
            s.pop();
            "file deleted".into()
        }
        ("file", other) if other.starts_with("move_to:") => {
            let to = other.trim_start_matches("move_to:").to_string();
            if let Some(f) = arg.and_then(|fid| s.data.files.get_mut(fid)) {
                f.folder = to.clone();
            }
            s.ui.dialog = None;
            format!("moved to {to}")
        }
        ("rename", "save") => {
            let name = s.field("name").trim().to_string();
            let Some(fid) = arg else { return String::new() };
            let folder = s.data.files.get(fid).map(|f| f.folder.clone()).unwrap_or_default();
            let error = if name.is_empty() {
                Some("A file needs a name")
            } else if name.contains('/') {
                Some("A name cannot contain /")
            } else if s.data.files.iter().any(|(k, f)| k != fid && f.folder == folder && f.name.eq_ignore_ascii_case(&name)) {
                Some("A file with that name already exists")
            } else {
                None
            };
            if let Some(e) = error {
                s.ui.toast = Some(e.into());
                return format!("not renamed: {}", e.to_lowercase());
            }
            if let Some(f) = s.data.files.get_mut(fid) {
                f.name = name;
            }
            s.pop();
            "file renamed".into()
        }
        _ => String::new(),
    }
}
