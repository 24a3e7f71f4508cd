//! A music player: songs with search, playlists as a tab, song pages that play or add to a
//! playlist (a dialog picks which), playlist pages that remove songs or delete the playlist,
//! and a new-playlist form that rejects empty and duplicate names.

use guigym_ui::{Pictogram, TextStyle, View};

use super::{confirm, open_item, photo, screen, split_route, App, UiEvent};
use crate::state::{AppData, DeviceState, Table};
use crate::world::World;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Song {
    pub title: String,
    pub artist: String,
    pub seconds: u32,
}

/// What a song's cover is drawn from: its artist and title (the world has no albums).
fn cover(song: &Song) -> String {
    format!("{} — {}", song.artist, song.title)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Playlist {
    pub name: String,
    /// Song ids, in play order.
    pub songs: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Player {
    pub song: Option<u32>,
    pub playing: bool,
    pub shuffle: bool,
}

const SONGS: [(&str, &str); 24] = [
    ("Morning Light", "The Harbor Lights"),
    ("Paper Boats", "The Harbor Lights"),
    ("City Rain", "Nova Lane"),
    ("Echoes", "Nova Lane"),
    ("Golden Hour", "Nova Lane"),
    ("Slow River", "Ada Quill"),
    ("Northern Sky", "Ada Quill"),
    ("Runaway Train", "The Wires"),
    ("Static", "The Wires"),
    ("Blue Hours", "Mara Sol"),
    ("Salt and Honey", "Mara Sol"),
    ("Open Roads", "Jonah Fields"),
    ("Campfire", "Jonah Fields"),
    ("Neon Dreams", "Pixel Hearts"),
    ("Arcade", "Pixel Hearts"),
    ("Quiet Storm", "Lena Marsh"),
    ("Willow", "Lena Marsh"),
    ("First Snow", "The Cold Season"),
    ("Lanterns", "The Cold Season"),
    ("Satellite", "Orbit Club"),
    ("Gravity", "Orbit Club"),
    ("Sunday Best", "Ruby Gray"),
    ("Midnight Bus", "Ruby Gray"),
    ("Long Way Home", "Ruby Gray"),
];

pub fn install(_w: &World, d: &mut AppData, rng: &mut Rng) {
    let mut songs = Table::default();
    for (title, artist) in SONGS {
        songs.insert(Song { title: title.into(), artist: artist.into(), seconds: rng.range(150, 300) as u32 });
    }
    d.songs = std::sync::Arc::new(songs);
    d.playlists.insert(Playlist { name: "Favourites".into(), songs: vec![1 + rng.below(8) as u32, 9 + rng.below(8) as u32] });
}

pub const APP: App = App { name: "Music", icon: guigym_ui::Pictogram::MusicNote, color: [236, 72, 153], root: "songs", view, handle };

fn tabs(i: usize) -> View {
    View::navigation("music_tabs", [("tab_songs", "Songs", Pictogram::MusicNote), ("tab_playlists", "Playlists", Pictogram::List)], i)
}

fn now_playing(s: &DeviceState) -> View {
    let text = match s.data.player.song.and_then(|id| s.data.songs.get(id)) {
        Some(song) => format!("{} {} — {}", if s.data.player.playing { "▶" } else { "⏸" }, song.title, song.artist),
        None => "Nothing playing".into(),
    };
    View::styled(text, TextStyle::Caption).id("now_playing")
}

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("song", Some(id)) => match s.data.songs.get(id) {
            Some(song) => {
                let dialog = (s.ui.dialog.as_deref() == Some("add")).then(|| {
                    View::dialog(
                        "add_dialog",
                        "Add to playlist",
                        s.data
                            .playlists
                            .iter()
                            .map(|(pid, p)| View::button(format!("to_playlist:{pid}"), &p.name))
                            .chain([View::button("dialog_cancel", "Cancel")]),
                    )
                });
                screen(
                    &song.title,
                    vec![
                        photo(&cover(song), 200.0),
                        View::text(&song.artist).id("artist"),
                        View::styled(format!("{}:{:02}", song.seconds / 60, song.seconds % 60), TextStyle::Caption).id("length"),
                        View::row([View::button("play", "Play"), View::button("add_to_playlist", "Add to playlist")]),
                        now_playing(s),
                    ],
                    dialog,
                )
            }
            None => screen("Song", vec![], None),
        },
        ("playlist", Some(id)) => match s.data.playlists.get(id) {
            Some(p) => {
                let dialog = match s.ui.dialog.as_deref() {
                    Some("delete") => {
                        Some(confirm("delete_dialog", "Delete playlist?", &format!("\"{}\" will be deleted.", p.name), "confirm_delete", "Delete"))
                    }
                    Some(d) if d.starts_with("remove:") => {
                        Some(confirm("remove_dialog", "Remove song?", "It stays in your library.", "confirm_remove", "Remove"))
                    }
                    _ => None,
                };
                screen(
                    &p.name,
                    vec![
                        View::list(
                            "playlist_songs",
                            s.scroll("playlist_songs"),
                            // The position is shown: in a world that lists things backwards, "first" must
                            // still be readable from the screen.
                            p.songs.iter().enumerate().filter_map(|(i, sid)| {
                                s.data
                                    .songs
                                    .get(*sid)
                                    .map(|song| View::item(format!("entry:{i}"), format!("{}. {}", i + 1, song.title), &song.artist).picture(cover(song)))
                            }),
                        ),
                        View::row([View::button("play_playlist", "Play"), View::danger_button("delete", "Delete playlist")]),
                        now_playing(s),
                    ],
                    dialog,
                )
            }
            None => screen("Playlist", vec![], None),
        },
        ("new_playlist", _) => {
            screen("New playlist", vec![View::field("name", s.field("name"), "Playlist name", focus == Some("name")), View::button("create", "Create")], None)
        }
        ("playlists", _) => screen(
            "Music",
            vec![
                View::list(
                    "playlists",
                    s.scroll("playlists"),
                    s.data.playlists.iter().map(|(id, p)| View::item(format!("playlist:{id}"), &p.name, format!("{} songs", p.songs.len())).picture(&p.name)),
                ),
                View::fab("new_playlist", "New playlist"),
                now_playing(s),
                tabs(1),
            ],
            None,
        ),
        _ => {
            let q = crate::normalize(s.field("search"));
            screen(
                "Music",
                vec![
                    View::field("search", s.field("search"), "Search songs or artists", focus == Some("search")),
                    View::list(
                        "songs",
                        s.scroll("songs"),
                        s.data
                            .songs
                            .iter()
                            .filter(|(_, x)| q.is_empty() || crate::normalize(&x.title).contains(&q) || crate::normalize(&x.artist).contains(&q))
                            .map(|(id, x)| View::item(format!("song:{id}"), &x.title, &x.artist).picture(cover(x))),
                    ),
                    now_playing(s),
                    tabs(0),
                ],
                None,
            )
        }
    }
}

pub fn create_playlist(s: &mut DeviceState, name: &str) -> u32 {
    s.data.playlists.insert(Playlist { name: name.to_string(), songs: Vec::new() })
}

/// Appends a song unless the playlist has it already.
pub fn add_song(s: &mut DeviceState, playlist: u32, song: u32) -> bool {
    match s.data.playlists.get_mut(playlist) {
        Some(p) if !p.songs.contains(&song) => {
            p.songs.push(song);
            true
        }
        _ => false,
    }
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(opened) = open_item(s, id, &[("song:", "song", "opened song"), ("playlist:", "playlist", "opened playlist")]) {
        return opened;
    }
    match (screen, id.as_str()) {
        (_, "tab_songs") => {
            s.reset_to("songs");
            "songs".into()
        }
        (_, "tab_playlists") => {
            s.reset_to("playlists");
            "playlists".into()
        }
        ("playlists", "new_playlist") => {
            s.push("new_playlist");
            "new playlist form".into()
        }
        ("new_playlist", "create") => {
            let name = s.field("name").trim().to_string();
            if name.is_empty() {
                s.ui.toast = Some("Name the playlist".into());
                return "not created: name the playlist".into();
            }
            if s.data.playlists.iter().any(|(_, p)| p.name.eq_ignore_ascii_case(&name)) {
                s.ui.toast = Some("A playlist with that name exists".into());
                return "not created: a playlist with that name exists".into();
            }
            let pid = create_playlist(s, &name);
            s.pop();
            s.push(format!("playlist:{pid}"));
            "playlist created".into()
        }
        ("song", "play") => {
            s.data.player.song = arg;
            s.data.player.playing = true;
            "playing".into()
        }
        ("song", "add_to_playlist") => {
            s.ui.dialog = Some("add".into());
            "choose a playlist".into()
        }
        ("song", to) if to.starts_with("to_playlist:") => {
            let pid: u32 = to.trim_start_matches("to_playlist:").parse().unwrap_or(0);
            s.ui.dialog = None;
            if arg.is_some_and(|sid| add_song(s, pid, sid)) { "added to playlist" } else { "already in that playlist" }.into()
        }
        ("playlist", entry) if entry.starts_with("entry:") => {
            s.ui.dialog = Some(format!("remove:{}", entry.trim_start_matches("entry:")));
            "asked to confirm removal".into()
        }
        ("playlist", "confirm_remove") => {
            let i: usize = s.ui.dialog.take().and_then(|d| d.trim_start_matches("remove:").parse().ok()).unwrap_or(usize::MAX);
            if let Some(p) = arg.and_then(|pid| s.data.playlists.get_mut(pid)) {
                if i < p.songs.len() {
                    p.songs.remove(i);
                }
            }
            "song removed".into()
        }
        ("playlist", "delete") => {
            s.ui.dialog = Some("delete".into());
            "asked to confirm deletion".into()
        }
        ("playlist", "confirm_delete") => {
            if let Some(pid) = arg {
                s.data.playlists.items.remove(&pid);
            }
            s.pop();
            "playlist deleted".into()
        }
        ("playlist", "play_playlist") => {
            let first = arg.and_then(|pid| s.data.playlists.get(pid)).and_then(|p| p.songs.first().copied());
            s.data.player.song = first;
            s.data.player.playing = first.is_some();
            if first.is_some() { "playing playlist" } else { "the playlist is empty" }.into()
        }
        _ => String::new(),
    }
}
