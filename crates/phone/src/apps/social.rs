//! A social feed: posts with likes and comments, and composing a post (not empty, at most
//! 280 characters).

use guigym_ui::{TextStyle, View};

use super::{open_item, screen, split_route, App, UiEvent};
use crate::state::{AppData, DeviceState};
use crate::time::Minutes;
use crate::world::World;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comment {
    pub author: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Post {
    pub author: String,
    pub text: String,
    pub likes: u32,
    pub liked: bool,
    pub comments: Vec<Comment>,
    pub time: Minutes,
}

/// Social feed: people of the world post about the scenario and its happenings.
pub fn install(w: &World, d: &mut AppData, rng: &mut Rng) {
    for (i, h) in w.happenings.iter().enumerate().take(6) {
        d.posts.insert(Post {
            author: w.person(h.with).name(),
            text: format!("Looking forward to the {} at {}!", h.topic, h.place),
            likes: rng.range(0, 40) as u32,
            liked: false,
            comments: if i % 2 == 0 { vec![Comment { author: w.person(h.with + 1).name(), text: "Same here!".into() }] } else { Vec::new() },
            time: w.now - (i as i64 + 1) * 95,
        });
    }
}

pub const APP: App = App { name: "Social", icon: guigym_ui::Pictogram::People, color: [59, 130, 246], root: "feed", view, handle };

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("post", Some(id)) => match s.data.posts.get(id) {
            Some(p) => screen(
                &p.author,
                vec![
                    View::text(&p.text).id("text"),
                    View::styled(format!("♥ {} · {} comments", p.likes, p.comments.len()), TextStyle::Caption).id("likes"),
                    View::button("like", if p.liked { "Unlike" } else { "Like" }),
                    View::list(
                        "comments",
                        s.scroll("comments"),
                        p.comments.iter().enumerate().map(|(i, c)| View::item(format!("comment:{i}"), &c.author, &c.text)),
                    ),
                    View::field("comment", s.field("comment"), "Write a comment", focus == Some("comment")),
                    View::button("send_comment", "Comment"),
                ],
                None,
            ),
            None => screen("Post", vec![View::text("This post was removed.")], None),
        },
        ("compose", _) => screen(
            "New post",
            vec![View::multiline_field("text", s.field("text"), "What's happening?", focus == Some("text")), View::button("publish", "Post")],
            None,
        ),
        _ => {
            let mut rows: Vec<(u32, &Post)> = s.data.posts.iter().collect();
            rows.sort_by_key(|(id, p)| (std::cmp::Reverse(p.time), *id));
            screen(
                "Feed",
                vec![
                    View::list(
                        "posts",
                        s.scroll("posts"),
                        rows.into_iter().map(|(id, p)| View::item_with(format!("post:{id}"), &p.author, &p.text, format!("♥ {}", p.likes)).avatar(&p.author)),
                    ),
                    View::fab("compose", "New post"),
                ],
                None,
            )
        }
    }
}

pub fn toggle_like(p: &mut Post) {
    p.liked = !p.liked;
    if p.liked {
        p.likes += 1;
    } else {
        p.likes = p.likes.saturating_sub(1);
    }
}

pub fn publish(s: &mut DeviceState, text: &str) {
    let (author, time) = (s.user_name.clone(), s.now());
    s.data.posts.insert(Post { author, text: text.to_string(), likes: 0, liked: false, comments: Vec::new(), time });
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(opened) = open_item(s, id, &[("post:", "post", "opened post")]) {
        return opened;
    }
    match (screen, id.as_str()) {
        ("feed", "compose") => {
            s.push("compose");
            "new post".into()
        }
        ("post", "like") => {
            let Some(p) = arg.and_then(|pid| s.data.posts.get_mut(pid)) else { return String::new() };
            toggle_like(p);
            if p.liked { "liked" } else { "unliked" }.into()
        }
        ("post", "send_comment") => {
            let text = s.field("comment").trim().to_string();
            if text.is_empty() {
                return "nothing to send".into();
            }
            let author = s.user_name.clone();
            if let Some(p) = arg.and_then(|pid| s.data.posts.get_mut(pid)) {
                p.comments.push(Comment { author, text });
            }
            s.ui.fields.remove("comment");
            "comment posted".into()
        }
        ("compose", "publish") => {
            let text = s.field("text").trim().to_string();
            if text.is_empty() || text.chars().count() > 280 {
                s.ui.toast = Some("A post has 1 to 280 characters".into());
                return "not posted: a post has 1 to 280 characters".into();
            }
            publish(s, &text);
            s.pop();
            "posted".into()
        }
        _ => String::new(),
    }
}
