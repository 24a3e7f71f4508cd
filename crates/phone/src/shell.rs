//! The device shell: status bar, home screen, back and home, app switching, and the
//! translation of canonical actions into UI events through layout and hit testing.
//!
//! The shell owns the generic parts of every screen (text fields, focus, scrolling, dialogs),
//! so apps stay small and every app reacts to the same gestures in the same way.

use guigym_core::{Action, Direction, InvalidAction, Point};
use guigym_ui::{Kind, Layout, Screen, Theme, View};

use crate::apps::{self, UiEvent, APPS};
use crate::state::DeviceState;
use crate::time;

/// Virtual time one action takes.
pub const STEP_MS: i64 = 1000;
/// How far one scroll unit moves a list, in dp.
pub const SCROLL_DP: i32 = 240;
const MAX_FIELD_CHARS: usize = 2000;

/// What the status bar shows of the device: unread conversations and mail, the radios, and a
/// battery whose charge follows the world's clock (the same world, the same charge; it drains
/// a point a minute from 95 to 35, then starts again).
pub fn status_icons(s: &DeviceState) -> guigym_ui::StatusIcons {
    let settings = &s.data.settings;
    guigym_ui::StatusIcons {
        unread_messages: s.data.threads.iter().any(|(_, t)| t.messages.last().is_some_and(|m| !m.from_me)),
        unread_mail: s.data.emails.iter().any(|(_, e)| !e.read && e.folder == apps::mail::Folder::Inbox),
        wifi: settings.wifi,
        airplane: settings.airplane_mode,
        do_not_disturb: settings.do_not_disturb,
        battery_pct: (95 - s.now().rem_euclid(61)) as u8,
    }
}

/// The whole screen for a state.
pub fn view(s: &DeviceState) -> View {
    let status = View::new(Kind::StatusBar { time: time::time_hm(s.now()), icons: status_icons(s) }).id("status_bar");
    let body = match s.ui.foreground.as_deref().and_then(apps::find) {
        Some(app) => {
            let route = s.route(app.name).unwrap_or(app.root);
            (app.view)(s, route)
        }
        None => home(),
    };
    let mut body = body;
    if s.ui.look.reversed_lists {
        reverse_lists(&mut body);
    }
    // An app's ad is a banner at the top, under the status bar: at the foot it would sit under
    // the app's own navigation bar.
    let mut column = vec![status];
    if s.ui.look.ads && s.ui.foreground.is_some() {
        column.push(View::item("ad_banner", "Sponsored", "Premium headphones: 20% off today"));
    }
    column.extend([body, View::new(Kind::Fill)]);
    if let Some(t) = &s.ui.toast {
        column.push(View::new(Kind::Snackbar { text: t.clone() }).id("toast"));
    }
    column.push(View::new(Kind::NavBar).id("nav_bar"));
    // A dialog inside the body must cover the whole screen, status bar included.
    let page = View::column(column);
    match s.ui.overlay.as_deref() {
        Some("ad") => View::stack([
            page,
            View::dialog("ad_dialog", "Sponsored", [View::text("Premium headphones: 20% off today only."), View::button("ad_close", "Close ad")]),
        ]),
        Some(popup) => {
            let app = popup.strip_prefix("popup:").unwrap_or(popup);
            View::stack([
                page,
                View::dialog(
                    "popup",
                    format!("What's new in {app}"),
                    [
                        View::text("Turn on notifications to never miss an update?"),
                        View::row([View::button("popup_dismiss", "Not now"), View::button("popup_accept", "Turn on")]),
                    ],
                ),
            ])
        }
        None => page,
    }
}

/// Lists shown in the other order (newest or last first), as some phones do. Conversations
/// keep their order.
fn reverse_lists(v: &mut View) {
    if matches!(v.kind, Kind::List { .. }) && v.id != "messages" {
        v.children.reverse();
    }
    for c in &mut v.children {
        reverse_lists(c);
    }
}

/// The layout of a state's screen, at the world's zoom.
pub fn layout<'a>(root: &'a View, s: &DeviceState, screen: Screen) -> Layout<'a> {
    let zoom = if s.ui.look.zoom_pct == 0 { 1.0 } else { s.ui.look.zoom_pct as f32 / 100.0 };
    Layout::zoomed(root, screen, zoom)
}

/// The colours of a state's world.
pub fn theme(s: &DeviceState) -> Theme {
    Theme::variant(s.ui.look.theme)
}

/// Taps on the device's own dialogs and banners, before any app sees them.
fn tap_overlay(s: &mut DeviceState, id: &str) -> Option<String> {
    match id {
        "popup_dismiss" | "popup_accept" => {
            if let Some(app) = s.ui.overlay.take().and_then(|o| o.strip_prefix("popup:").map(str::to_string)) {
                s.ui.look.popups.retain(|a| *a != app);
            }
            Some("closed the pop-up".into())
        }
        "ad_banner" => {
            s.ui.overlay = Some("ad".into());
            Some("opened an ad".into())
        }
        "ad_close" => {
            s.ui.overlay = None;
            Some("closed the ad".into())
        }
        _ => None,
    }
}

fn home() -> View {
    let icons: Vec<View> = APPS.iter().map(|a| View::icon(format!("app:{}", a.name), a.name, a.icon, a.color)).collect();
    let rows = icons.chunks(4).map(|chunk| {
        let mut row: Vec<View> = chunk.to_vec();
        while row.len() < 4 {
            row.push(View::spacer(0.0));
        }
        View::row(row)
    });
    View::column(std::iter::once(View::spacer(24.0)).chain(rows)).id("home")
}

/// Where the foreground is, as `app/route` or `home`.
pub fn screen_name(s: &DeviceState) -> String {
    match s.ui.foreground.as_deref().and_then(apps::find) {
        Some(app) => format!("{}/{}", app.name, s.route(app.name).unwrap_or(app.root)),
        None => "home".into(),
    }
}

pub fn open_app(s: &mut DeviceState, name: &str) -> Result<String, InvalidAction> {
    let app = apps::find(name).ok_or_else(|| {
        let names: Vec<&str> = APPS.iter().map(|a| a.name).collect();
        InvalidAction::new(format!("no app named \"{name}\"; installed: {}", names.join(", ")))
    })?;
    s.clear_screen();
    s.ui.toast = None;
    s.ui.overlay = None;
    s.ui.foreground = Some(app.name.to_string());
    s.ui.routes.entry(app.name.to_string()).or_insert_with(|| vec![app.root.to_string()]);
    if s.ui.look.popups.iter().any(|p| p == app.name) {
        s.ui.overlay = Some(format!("popup:{}", app.name));
        return Ok(format!("opened {}; a pop-up appeared", app.name));
    }
    Ok(format!("opened {}", app.name))
}

/// Applies one device-level action (not `answer`, `ask_user` or `terminate`, which the
/// backend records). Returns feedback; an `InvalidAction` changes nothing at all (not even
/// the clock), so an agent's mistakes never move the state it is judged on.
pub fn apply(s: &mut DeviceState, action: &Action, screen: Screen) -> Result<String, InvalidAction> {
    let clock = s.clock_ms;
    s.clock_ms += STEP_MS;
    let root = view(s);
    let layout = layout(&root, s, screen);
    // A toast lasts until the next valid action.
    let toast = s.ui.toast.take();
    let result = apply_on(s, action, &layout);
    if result.is_err() {
        s.ui.toast = toast;
        s.clock_ms = clock;
    }
    result
}

fn apply_on(s: &mut DeviceState, action: &Action, layout: &Layout<'_>) -> Result<String, InvalidAction> {
    match action {
        Action::Click { .. } | Action::DoubleClick { .. } | Action::RightClick { .. } => {
            let id = resolve(layout, action)?;
            tap(s, layout, &id)
        }
        Action::LongPress { .. } => {
            let id = resolve(layout, action)?;
            match s.ui.foreground.as_deref().and_then(apps::find) {
                Some(app) => {
                    let route = s.route(app.name).unwrap_or(app.root).to_string();
                    let fb = (app.handle)(s, &route, &UiEvent::LongPress(id.clone()));
                    Ok(if fb.is_empty() { format!("long-pressed {id}: nothing happened") } else { fb })
                }
                None => Ok(format!("long-pressed {id}: nothing happened")),
            }
        }
        Action::Type { text, element, clear } => {
            // Everything is checked before anything changes: an invalid `type` moves no
            // focus, clears no field and creates no empty one.
            if let Some(e) = element {
                let node = layout.touchable_node(e).ok_or_else(|| unknown_element(e))?;
                if !matches!(node.view.kind, Kind::TextField { .. }) {
                    return Err(InvalidAction::new(format!("element {e} is not a text field")));
                }
            }
            // A field under an open dialog has lost the keyboard to it, as on a phone.
            let Some(field) = element.clone().or_else(|| s.ui.focus.clone().filter(|f| !layout.covered(f))) else {
                return Err(InvalidAction::new("no text field is focused: tap a field first or give `element`"));
            };
            let kept = if *clear { 0 } else { s.ui.fields.get(&field).map_or(0, |v| v.chars().count()) };
            if kept + text.chars().count() > MAX_FIELD_CHARS {
                return Err(InvalidAction::new(format!("text too long: a field holds at most {MAX_FIELD_CHARS} characters")));
            }
            s.ui.focus = Some(field.clone());
            if text.is_empty() && !*clear {
                return Ok(format!("typed nothing into {field}"));
            }
            let value = s.ui.fields.entry(field.clone()).or_default();
            if *clear {
                value.clear();
            }
            value.push_str(text);
            Ok(format!("typed into {field}"))
        }
        Action::Scroll { direction, amount, .. } => {
            let list = match action.target()? {
                Some(guigym_core::action::Target::At(p)) => layout.scrollable_at(p.0, p.1).map(|n| n.id.clone()).ok_or_else(|| nothing_to_scroll(p))?,
                Some(guigym_core::action::Target::Element(e)) => {
                    scrollable_ancestor(layout, e).ok_or_else(|| InvalidAction::new(format!("element {e} is not in a scrollable list")))?
                }
                None => return Err(InvalidAction::new("scroll needs a target")),
            };
            scroll(s, layout, &list, *direction, *amount)
        }
        Action::Swipe { from, to } | Action::Drag { from, to } => {
            let (dx, dy) = (to.0 - from.0, to.1 - from.1);
            match layout.scrollable_at(from.0, from.1) {
                Some(list) if dy.abs() > dx.abs() && dy.abs() > 10.0 => {
                    // Content follows the finger: swiping up scrolls down.
                    let dir = if dy < 0.0 { Direction::Down } else { Direction::Up };
                    let units = ((dy.abs() / layout.scale()) / SCROLL_DP as f32).ceil().max(1.0) as u32;
                    scroll(s, layout, &list.id.clone(), dir, units)
                }
                _ => Ok("swiped: nothing moved".into()),
            }
        }
        Action::Key { keys } => {
            Action::portable_chord(keys)?;
            let key = keys.iter().map(|k| k.trim().to_lowercase()).collect::<Vec<_>>().join("+");
            match key.as_str() {
                "back" | "escape" => back(s),
                "home" => Ok(go_home(s)),
                _ => match s.ui.foreground.as_deref().and_then(apps::find) {
                    Some(app) => {
                        let route = s.route(app.name).unwrap_or(app.root).to_string();
                        let fb = (app.handle)(s, &route, &UiEvent::Key(key.clone()));
                        Ok(if fb.is_empty() { format!("pressed {key}: nothing happened") } else { fb })
                    }
                    None => Ok(format!("pressed {key}: nothing happened")),
                },
            }
        }
        Action::Back => back(s),
        Action::Home => Ok(go_home(s)),
        Action::OpenApp { name } => open_app(s, name),
        Action::Wait { ms } => {
            let ms = (*ms).min(600_000);
            s.clock_ms += ms as i64;
            Ok(format!("waited {ms} ms"))
        }
        Action::Answer { .. } | Action::AskUser { .. } | Action::Terminate { .. } => {
            Err(InvalidAction::new(format!("{} is handled by the environment, not the device", action.name())))
        }
    }
}

fn unknown_element(id: &str) -> InvalidAction {
    InvalidAction::new(format!("no element \"{id}\" on screen"))
}

fn nothing_to_scroll(p: Point) -> InvalidAction {
    InvalidAction::new(format!("nothing scrollable at ({}, {})", p.0, p.1))
}

/// The id of the clickable node an action targets.
fn resolve(layout: &Layout<'_>, action: &Action) -> Result<String, InvalidAction> {
    match action.target()? {
        Some(guigym_core::action::Target::At(Point(x, y))) => {
            let (w, h) = (layout.screen.width as f32, layout.screen.height as f32);
            if !(0.0..w).contains(&x) || !(0.0..h).contains(&y) || x.is_nan() || y.is_nan() {
                return Err(InvalidAction::new(format!("({x}, {y}) is off screen ({}×{})", w, h)));
            }
            match layout.hit(x, y) {
                Some(node) => Ok(node.id.clone()),
                None if layout.modal.is_some() => Err(InvalidAction::new(format!("({x}, {y}) is outside the open dialog"))),
                None => Err(InvalidAction::new(format!("nothing to tap at ({x}, {y})"))),
            }
        }
        Some(guigym_core::action::Target::Element(e)) => {
            let node = layout.touchable_node(e).ok_or_else(|| unknown_element(e))?;
            if !node.view.clickable() {
                return Err(InvalidAction::new(format!("element {e} is not clickable")));
            }
            Ok(node.id.clone())
        }
        None => Err(InvalidAction::new(format!("{} needs a target", action.name()))),
    }
}

fn tap(s: &mut DeviceState, layout: &Layout<'_>, id: &str) -> Result<String, InvalidAction> {
    if let Some(app) = id.strip_prefix("app:") {
        return open_app(s, app);
    }
    if let Some(feedback) = tap_overlay(s, id) {
        return Ok(feedback);
    }
    // Every app's dialogs cancel the same way.
    if id == "dialog_cancel" && s.ui.dialog.take().is_some() {
        return Ok("tapped \"Cancel\": cancelled".into());
    }
    let node = layout.find(id).ok_or_else(|| unknown_element(id))?;
    if let Kind::TextField { .. } = node.view.kind {
        s.ui.focus = Some(id.to_string());
        return Ok(format!("focused {id}"));
    }
    let label = node.view.label();
    let Some(app) = s.ui.foreground.as_deref().and_then(apps::find) else {
        return Ok(format!("tapped \"{label}\": nothing happened"));
    };
    let route = s.route(app.name).unwrap_or(app.root).to_string();
    let feedback = (app.handle)(s, &route, &UiEvent::Tap(id.to_string()));
    Ok(if feedback.is_empty() { format!("tapped \"{label}\": nothing happened") } else { format!("tapped \"{label}\": {feedback}") })
}

fn scrollable_ancestor(layout: &Layout<'_>, id: &str) -> Option<String> {
    let mut at = layout.nodes.iter().position(|p| p.id == id)?;
    loop {
        let node = &layout.nodes[at];
        if matches!(node.view.kind, Kind::List { .. }) {
            return Some(node.id.clone());
        }
        at = node.parent?;
    }
}

fn scroll(s: &mut DeviceState, layout: &Layout<'_>, list: &str, dir: Direction, amount: u32) -> Result<String, InvalidAction> {
    let node = layout.find(list).ok_or_else(|| unknown_element(list))?;
    let scale = layout.scale();
    let max = (((node.content_height - node.visible.h) as f32) / scale).ceil().max(0.0) as i32;
    let step = SCROLL_DP * amount.clamp(1, 20) as i32;
    let old = s.scroll(list);
    let new = match dir {
        Direction::Down => (old + step).min(max),
        Direction::Up => (old - step).max(0),
        Direction::Left | Direction::Right => return Ok(format!("{list} does not scroll sideways")),
    };
    if new == old {
        return Ok(format!("{list} is already at the {}", if dir == Direction::Down { "end" } else { "top" }));
    }
    s.ui.scroll.insert(list.to_string(), new);
    Ok(format!("scrolled {list} {}", if dir == Direction::Down { "down" } else { "up" }))
}

fn back(s: &mut DeviceState) -> Result<String, InvalidAction> {
    if s.ui.overlay.is_some() {
        return Ok(tap_overlay(s, if s.ui.overlay.as_deref() == Some("ad") { "ad_close" } else { "popup_dismiss" }).unwrap_or_default());
    }
    if s.ui.dialog.take().is_some() {
        return Ok("closed dialog".into());
    }
    if s.ui.focus.take().is_some() {
        // Like a keyboard: the first back hides it.
        return Ok("closed keyboard".into());
    }
    if s.pop() {
        return Ok("went back".into());
    }
    if s.ui.foreground.is_some() {
        return Ok(go_home(s));
    }
    Ok("already on the home screen".into())
}

fn go_home(s: &mut DeviceState) -> String {
    s.clear_screen();
    s.ui.overlay = None;
    s.ui.toast = None;
    s.ui.foreground = None;
    "went home".into()
}
