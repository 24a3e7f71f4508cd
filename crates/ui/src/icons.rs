//! The status bar's icons as filled shapes in dp, placed once here and drawn alike by both
//! renderers: the native raster as tiny-skia paths, the page as one inline SVG. Notifications
//! sit left after the time, the device's state right (do not disturb, Wi-Fi, signal or
//! airplane, battery), as on an Android phone.

/// What the status bar shows besides the time.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StatusIcons {
    /// A conversation whose last message is someone else's.
    pub unread_messages: bool,
    /// Unread mail in the inbox.
    pub unread_mail: bool,
    pub wifi: bool,
    pub airplane: bool,
    pub do_not_disturb: bool,
    /// 0–100.
    pub battery_pct: u8,
}

/// A filled shape in dp from the bar's corner; a `cut` shape is painted in the bar's own colour
/// (the hole in a battery or an envelope).
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Rect { x: f32, y: f32, w: f32, h: f32, radius: f32, cut: bool },
    Polygon { points: Vec<(f32, f32)>, cut: bool },
}

/// An icon's side in dp.
pub const ICON: f32 = 16.0;
/// Where the notification icons start, after the time.
const NOTIFICATIONS_X: f32 = 62.0;
/// From one icon to the next.
const SPACING: f32 = 20.0;

/// The shapes of the bar's icons for a bar `width` dp wide and `height` dp high.
pub fn status_shapes(icons: &StatusIcons, width: f32, height: f32) -> Vec<Shape> {
    let y = ((height - ICON) / 2.0).max(0.0);
    let mut shapes = Vec::new();
    let mut left = NOTIFICATIONS_X;
    for (shown, draw) in [(icons.unread_messages, message as fn(f32, f32) -> Vec<Shape>), (icons.unread_mail, mail)] {
        if shown {
            shapes.extend(draw(left, y));
            left += SPACING;
        }
    }
    let mut right = width - 16.0 - ICON;
    shapes.extend(battery(right, y, icons.battery_pct.min(100)));
    right -= SPACING - 2.0;
    let mut system: Vec<fn(f32, f32) -> Vec<Shape>> = vec![if icons.airplane { airplane } else { signal }];
    if icons.wifi {
        system.push(wifi);
    }
    if icons.do_not_disturb {
        system.push(do_not_disturb);
    }
    for draw in system {
        shapes.extend(draw(right, y));
        right -= SPACING - 2.0;
    }
    shapes
}

fn rect(x: f32, y: f32, w: f32, h: f32, radius: f32) -> Shape {
    Shape::Rect { x, y, w, h, radius, cut: false }
}

fn cut(x: f32, y: f32, w: f32, h: f32, radius: f32) -> Shape {
    Shape::Rect { x, y, w, h, radius, cut: true }
}

fn polygon(ox: f32, oy: f32, points: &[(f32, f32)], cut: bool) -> Shape {
    Shape::Polygon { points: points.iter().map(|(x, y)| (ox + x, oy + y)).collect(), cut }
}

/// Points on a circle's arc, from angle `from` to `to` (radians, y pointing down).
fn arc(cx: f32, cy: f32, r: f32, from: f32, to: f32, steps: usize) -> Vec<(f32, f32)> {
    (0..=steps).map(|i| from + (to - from) * i as f32 / steps as f32).map(|a| (cx + r * a.cos(), cy + r * a.sin())).collect()
}

fn signal(x: f32, y: f32) -> Vec<Shape> {
    (0..4)
        .map(|i| {
            let h = 3.0 + i as f32 * 3.5;
            rect(x + 1.0 + i as f32 * 3.75, y + 15.0 - h, 2.75, h, 0.5)
        })
        .collect()
}

fn wifi(x: f32, y: f32) -> Vec<Shape> {
    use std::f32::consts::FRAC_PI_4;
    let mut points = vec![(8.0, 14.5)];
    points.extend(arc(8.0, 14.5, 11.0, -3.0 * FRAC_PI_4, -FRAC_PI_4, 12));
    vec![polygon(x, y, &points, false)]
}

fn battery(x: f32, y: f32, pct: u8) -> Vec<Shape> {
    let level = 10.4 * pct as f32 / 100.0;
    vec![
        rect(x + 6.5, y + 1.0, 3.0, 2.0, 0.5),
        rect(x + 4.0, y + 2.5, 8.0, 13.0, 1.2),
        cut(x + 5.3, y + 3.8, 5.4, 10.4, 0.4),
        rect(x + 5.3, y + 3.8 + 10.4 - level, 5.4, level, 0.4),
    ]
}

fn airplane(x: f32, y: f32) -> Vec<Shape> {
    let plane = [
        (8.0, 1.0),
        (9.0, 2.0),
        (9.0, 6.0),
        (15.0, 9.5),
        (15.0, 11.0),
        (9.0, 9.0),
        (9.0, 12.5),
        (11.0, 14.0),
        (11.0, 15.0),
        (8.0, 14.2),
        (5.0, 15.0),
        (5.0, 14.0),
        (7.0, 12.5),
        (7.0, 9.0),
        (1.0, 11.0),
        (1.0, 9.5),
        (7.0, 6.0),
        (7.0, 2.0),
    ];
    vec![polygon(x, y, &plane, false)]
}

fn do_not_disturb(x: f32, y: f32) -> Vec<Shape> {
    let circle = arc(8.0, 8.5, 6.5, 0.0, std::f32::consts::TAU, 32);
    vec![polygon(x, y, &circle, false), cut(x + 4.5, y + 7.6, 7.0, 1.8, 0.0)]
}

fn message(x: f32, y: f32) -> Vec<Shape> {
    vec![rect(x + 1.5, y + 2.5, 13.0, 9.0, 2.0), polygon(x, y, &[(4.0, 11.0), (4.0, 14.5), (8.0, 11.0)], false)]
}

fn mail(x: f32, y: f32) -> Vec<Shape> {
    let flap = [(1.5, 4.2), (8.0, 8.8), (14.5, 4.2), (14.5, 5.9), (8.0, 10.5), (1.5, 5.9)];
    vec![rect(x + 1.5, y + 3.5, 13.0, 10.0, 1.2), polygon(x, y, &flap, true)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xs(shapes: &[Shape]) -> Vec<f32> {
        shapes
            .iter()
            .map(|s| match s {
                Shape::Rect { x, .. } => *x,
                Shape::Polygon { points, .. } => points[0].0,
            })
            .collect()
    }

    #[test]
    fn icons_follow_the_state_and_stay_inside_the_bar() {
        let quiet = StatusIcons { battery_pct: 80, ..StatusIcons::default() };
        let busy = StatusIcons { unread_messages: true, unread_mail: true, wifi: true, do_not_disturb: true, battery_pct: 80, ..quiet.clone() };
        let (a, b) = (status_shapes(&quiet, 360.0, 28.0), status_shapes(&busy, 360.0, 28.0));
        assert!(b.len() > a.len());
        // Notifications only when there is something unread, after the time.
        assert!(xs(&a).iter().all(|x| *x > 200.0), "only system icons, at the right");
        assert!(xs(&b).iter().any(|x| *x >= NOTIFICATIONS_X && *x < 100.0));
        // Airplane mode takes the signal's place.
        let flying = status_shapes(&StatusIcons { airplane: true, ..quiet.clone() }, 360.0, 28.0);
        assert_ne!(flying, a);
        // Everything inside the bar.
        for s in b.iter().chain(&flying) {
            let points: Vec<(f32, f32)> = match s {
                Shape::Rect { x, y, w, h, .. } => vec![(*x, *y), (x + w, y + h)],
                Shape::Polygon { points, .. } => points.clone(),
            };
            assert!(points.iter().all(|(x, y)| (0.0..=360.0).contains(x) && (0.0..=28.0).contains(y)), "{s:?}");
        }
        // The battery's level follows its charge.
        let level = |pct| match &battery(0.0, 0.0, pct)[3] {
            Shape::Rect { h, .. } => *h,
            _ => 0.0,
        };
        assert!(level(20) < level(90));
    }
}
