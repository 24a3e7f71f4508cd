//! Icons as filled shapes in dp, placed once here and drawn alike by both renderers: the
//! native raster as tiny-skia paths, the page as inline SVG. The status bar's: notifications
//! left after the time, the device's state right (do not disturb, Wi-Fi, signal or airplane,
//! battery), as on an Android phone. The apps' pictograms, drawn on a 24-unit grid (as
//! Material's icons are) and scaled to the tile.

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

/// A plus in a 24 dp square from (x, y): a floating action button's sign.
pub fn plus(x: f32, y: f32) -> Vec<Shape> {
    vec![rect(x + 5.0, y + 11.0, 14.0, 2.0, 1.0), rect(x + 11.0, y + 5.0, 2.0, 14.0, 1.0)]
}

/// A tick in a 24 dp square from (x, y): a chosen checkbox's mark.
pub fn tick(x: f32, y: f32) -> Vec<Shape> {
    vec![polygon(x, y, &[(5.0, 12.6), (7.0, 10.6), (10.0, 13.6), (17.0, 6.6), (19.0, 8.6), (10.0, 17.6)], false)]
}

/// Where a checkbox's box sits in its row, from the row's corner.
pub const CHECKBOX: (f32, f32) = (16.0, 14.0);

/// Where a floating action button's plus sits, from its corner.
pub const FAB_ICON: (f32, f32) = (16.0, 16.0);

/// The shadow a raised surface casts (Material's elevation), as layers drawn under it: each
/// moved down `dy` dp, grown `spread` dp on every side, in black of opacity `alpha`.
pub const ELEVATION: [(f32, f32, u8); 2] = [(1.0, 0.0, 51), (3.0, 1.0, 26)];

/// A person's avatar in a list row: its side in dp, and where the row's text starts after it.
pub const AVATAR: f32 = 40.0;
pub const AFTER_AVATAR: f32 = 72.0;

/// What a person's avatar shows: the initials of their name's first two words, on a colour
/// picked by their name (the same person, the same colour, on every screen and renderer).
pub fn avatar(name: &str) -> (String, Rgb) {
    let initials: String = name.split_whitespace().filter_map(|w| w.chars().find(|c| c.is_alphanumeric())).take(2).flat_map(char::to_uppercase).collect();
    (if initials.is_empty() { "?".into() } else { initials }, COLOURS[(stable_hash(name) % COLOURS.len() as u64) as usize])
}

type Rgb = crate::theme::Rgb;

/// The colours pictures are drawn from.
const COLOURS: [Rgb; 8] = [[234, 88, 12], [22, 163, 74], [37, 99, 235], [147, 51, 234], [219, 39, 119], [13, 148, 136], [202, 138, 4], [71, 85, 105]];

/// FNV-1a: a stable hash (std's is seeded per process), so a name draws the same picture in
/// every process.
fn stable_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// A thing's picture in a list row: its side in dp, and where the row's text starts after it.
pub const PICTURE: f32 = 56.0;
pub const AFTER_PICTURE: f32 = 88.0;

/// A picture both renderers draw alike: convex polygons in dp from the picture's corner, each in
/// its colour, painted in order.
pub type Scene = Vec<(Vec<(f32, f32)>, Rgb)>;

/// A thing's picture (an album's cover, a product's photo) drawn from its name, `PICTURE` dp a
/// side (the first layer fills the rounded square). The same name gives the same picture on
/// both renderers.
pub fn picture(name: &str) -> Scene {
    picture_sized(name, PICTURE)
}

/// The same picture, `side` dp a side.
pub fn picture_sized(name: &str, side: f32) -> Scene {
    let k = side / PICTURE;
    picture_at_size(name).into_iter().map(|(points, rgb)| (points.into_iter().map(|(x, y)| (x * k, y * k)).collect(), rgb)).collect()
}

fn picture_at_size(name: &str) -> Scene {
    const S: f32 = PICTURE;
    let h = stable_hash(name);
    // Each decision takes its own bits of the hash.
    let bits = |shift: u32, n: u64| ((h >> shift) % n) as f32;
    let base = COLOURS[(h % COLOURS.len() as u64) as usize];
    let mix = |to: Rgb, t: f32| -> Rgb { std::array::from_fn(|i| (base[i] as f32 + (to[i] as f32 - base[i] as f32) * t).round() as u8) };
    let (light, pale, dark) = (mix([255, 255, 255], 0.45), mix([255, 255, 255], 0.8), mix([0, 0, 0], 0.35));
    let disc = |cx: f32, cy: f32, r: f32| arc(cx, cy, r, 0.0, std::f32::consts::TAU, 40);
    let mut layers = vec![(rounded_square(S, 8.0), base)];
    let jitter = bits(8, 9) - 4.0;
    match h >> 40 & 3 {
        // A sun over hills.
        0 => {
            layers.push((disc(S * 0.62 + jitter, S * 0.36, S * 0.16), pale));
            layers.push((vec![(0.0, S), (0.0, S * 0.62), (S * 0.45, S * 0.48 + jitter), (S, S * 0.7), (S, S)], dark));
        }
        // Mountains.
        1 => {
            layers.push((vec![(S * 0.05, S), (S * 0.4 + jitter, S * 0.3), (S * 0.75, S)], light));
            layers.push((vec![(S * 0.35, S), (S * 0.68, S * 0.45 - jitter), (S, S * 0.8), (S, S)], dark));
        }
        // Bands across.
        2 => {
            for k in 0..3 {
                let y = S * (0.2 + 0.25 * k as f32) + jitter;
                layers.push((vec![(0.0, y + 10.0), (S, y - 6.0), (S, y), (0.0, y + 16.0)], if k % 2 == 0 { light } else { dark }));
            }
        }
        // Rings.
        _ => {
            let (cx, cy) = (S * 0.5 + jitter, S * 0.5 - jitter);
            layers.push((disc(cx, cy, S * 0.34), light));
            layers.push((disc(cx, cy, S * 0.22), dark));
            layers.push((disc(cx, cy, S * 0.08), pale));
        }
    }
    // Every layer is cut to the rounded square, so both renderers draw the same corners.
    let frame = rounded_square(S, 8.0);
    layers.into_iter().map(|(points, rgb)| (clip_convex(points, &frame), rgb)).filter(|(points, _)| points.len() > 2).collect()
}

/// A convex polygon cut to a convex window given clockwise on screen (y down): Sutherland–Hodgman,
/// one edge of the window at a time.
pub fn clip_convex(mut points: Vec<(f32, f32)>, window: &[(f32, f32)]) -> Vec<(f32, f32)> {
    for (i, &(ax, ay)) in window.iter().enumerate() {
        let (bx, by) = window[(i + 1) % window.len()];
        // Inside lies right of the edge a→b as the screen shows it (clockwise order).
        let side = |(x, y): (f32, f32)| (bx - ax) * (y - ay) - (by - ay) * (x - ax);
        let mut out = Vec::with_capacity(points.len() + 2);
        for j in 0..points.len() {
            let (p, q) = (points[j], points[(j + 1) % points.len()]);
            let (sp, sq) = (side(p), side(q));
            let cross = || {
                let t = sp / (sp - sq);
                (p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1))
            };
            match (sp >= 0.0, sq >= 0.0) {
                (true, true) => out.push(q),
                (true, false) => out.push(cross()),
                (false, true) => {
                    out.push(cross());
                    out.push(q);
                }
                (false, false) => {}
            }
        }
        points = out;
        if points.is_empty() {
            break;
        }
    }
    points
}

/// The map's colours: land, water, parks, streets; pins; the route and where you are.
const LAND: Rgb = [236, 238, 231];
const WATER: Rgb = [166, 200, 238];
const PARK: Rgb = [198, 226, 186];
const STREET: Rgb = [255, 255, 255];
const PIN: Rgb = [220, 38, 38];
const OTHER_PIN: Rgb = [120, 124, 135];
const ROUTE: Rgb = [37, 99, 235];

/// A map of `width` × `height` dp drawn from the world's places (`key` seeds its streets, river
/// and park; each place's pin stands where its name puts it): `target`'s pin in red, the others
/// grey; with `route`, a line from where you are (a blue dot) to the target along the streets.
pub fn map(key: &str, places: &[&str], target: Option<&str>, route: bool, width: f32, height: f32) -> Scene {
    let h = stable_hash(key);
    let bits = |shift: u32, n: u64| ((h >> shift) % n) as f32;
    let mut scene: Scene = vec![(vec![(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)], LAND)];
    // A park, then a river running down across the map.
    let (px, py) = (width * (0.15 + bits(0, 50) / 100.0), height * (0.1 + bits(6, 40) / 100.0));
    scene.push((vec![(px, py), (px + 70.0, py + 8.0), (px + 64.0, py + 52.0), (px - 6.0, py + 44.0)], PARK));
    let rx = width * (0.55 + bits(12, 30) / 100.0);
    scene.push((vec![(rx, 0.0), (rx + 22.0, 0.0), (rx - 18.0, height), (rx - 40.0, height)], WATER));
    // Streets every 44–60 dp, both ways, the main ones wider.
    let step = 44.0 + bits(18, 17);
    let mut x = bits(24, 30);
    while x < width {
        scene.push((vec![(x, 0.0), (x + 4.0, 0.0), (x + 4.0, height), (x, height)], STREET));
        x += step;
    }
    let mut y = bits(30, 30);
    while y < height {
        scene.push((vec![(0.0, y), (width, y), (width, y + 4.0), (0.0, y + 4.0)], STREET));
        y += step;
    }
    let spot = |name: &str| {
        let p = stable_hash(name);
        (24.0 + (p % 1000) as f32 / 1000.0 * (width - 48.0), 28.0 + (p >> 20) as f32 % 1000.0 / 1000.0 * (height - 44.0))
    };
    if let (Some(t), true) = (target, route) {
        let (you, to) = ((width * 0.12, height * 0.82), spot(t));
        let corner = (to.0, you.1);
        let line = |a: (f32, f32), b: (f32, f32)| {
            let (x0, x1, y0, y1) = (a.0.min(b.0) - 2.5, a.0.max(b.0) + 2.5, a.1.min(b.1) - 2.5, a.1.max(b.1) + 2.5);
            vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        };
        scene.push((line(you, corner), ROUTE));
        scene.push((line(corner, to), ROUTE));
        scene.push((arc(you.0, you.1, 8.0, 0.0, std::f32::consts::TAU, 24), STREET));
        scene.push((arc(you.0, you.1, 6.0, 0.0, std::f32::consts::TAU, 24), ROUTE));
    }
    // The target's pin last, over the others.
    let mut pins: Vec<&str> = places.iter().copied().filter(|p| Some(*p) != target).collect();
    pins.extend(target);
    for name in pins {
        let (x, y) = spot(name);
        let colour = if Some(name) == target { PIN } else { OTHER_PIN };
        scene.push((vec![(x - 5.5, y - 12.0), (x + 5.5, y - 12.0), (x, y)], colour));
        scene.push((arc(x, y - 16.0, 7.0, 0.0, std::f32::consts::TAU, 24), colour));
        scene.push((arc(x, y - 16.0, 2.6, 0.0, std::f32::consts::TAU, 16), STREET));
    }
    scene
}

/// A square of side `side` with corners rounded by `r`, as a polygon.
fn rounded_square(side: f32, r: f32) -> Vec<(f32, f32)> {
    use std::f32::consts::FRAC_PI_2;
    let corners = [(side - r, r, -FRAC_PI_2), (side - r, side - r, 0.0), (r, side - r, FRAC_PI_2), (r, r, 2.0 * FRAC_PI_2)];
    corners.iter().flat_map(|&(cx, cy, from)| arc(cx, cy, r, from, from + FRAC_PI_2, 6)).collect()
}

/// An app icon's tile, in dp a side.
pub const TILE: f32 = 56.0;
/// Its pictogram's square, centred on the tile.
const PICTOGRAM: f32 = 34.0;

/// The shapes of an app icon's pictogram from its tile's corner.
pub fn tile_shapes(picture: Pictogram) -> Vec<Shape> {
    let at = (TILE - PICTOGRAM) / 2.0;
    picture.shapes(at, at, PICTOGRAM)
}

/// An app's pictogram, drawn over its coloured tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pictogram {
    Person,
    Chat,
    Envelope,
    Calendar,
    Note,
    Folder,
    Gear,
    Clock,
    Bag,
    Cutlery,
    Car,
    Train,
    Bank,
    Pin,
    Star,
    People,
    MusicNote,
    List,
    Hourglass,
    Search,
    Ticket,
}

impl Pictogram {
    /// Its shapes in a square of `side` dp whose corner is at (`x`, `y`); a `cut` shape is
    /// painted in the tile's colour.
    pub fn shapes(self, x: f32, y: f32, side: f32) -> Vec<Shape> {
        let k = side / 24.0;
        let grid = self.grid();
        grid.into_iter()
            .map(|s| match s {
                Shape::Rect { x: rx, y: ry, w, h, radius, cut } => Shape::Rect { x: x + rx * k, y: y + ry * k, w: w * k, h: h * k, radius: radius * k, cut },
                Shape::Polygon { points, cut } => Shape::Polygon { points: points.into_iter().map(|(px, py)| (x + px * k, y + py * k)).collect(), cut },
            })
            .collect()
    }

    /// Its shapes on the 24-unit grid.
    fn grid(self) -> Vec<Shape> {
        use std::f32::consts::{FRAC_PI_6, PI, TAU};
        let circle = |cx: f32, cy: f32, r: f32, cut: bool| polygon(0.0, 0.0, &arc(cx, cy, r, 0.0, TAU, 36), cut);
        // Head and shoulders, the shoulders an upper half disc standing on `base`.
        let person = |cx: f32, head_y: f32, head: f32, base: f32, body: f32, cut: bool| {
            vec![circle(cx, head_y, head, cut), polygon(0.0, 0.0, &arc(cx, base, body, PI, TAU, 24), cut)]
        };
        match self {
            Pictogram::Person => person(12.0, 7.8, 4.2, 20.5, 8.0, false),
            Pictogram::Chat => vec![
                rect(3.0, 4.0, 18.0, 13.0, 3.0),
                polygon(0.0, 0.0, &[(6.0, 16.0), (6.0, 21.5), (11.5, 16.5)], false),
                cut(7.0, 9.4, 2.2, 2.2, 1.1),
                cut(10.9, 9.4, 2.2, 2.2, 1.1),
                cut(14.8, 9.4, 2.2, 2.2, 1.1),
            ],
            Pictogram::Envelope => {
                vec![rect(2.5, 5.0, 19.0, 14.0, 2.0), polygon(0.0, 0.0, &[(2.5, 6.8), (12.0, 13.2), (21.5, 6.8), (21.5, 9.2), (12.0, 15.6), (2.5, 9.2)], true)]
            }
            Pictogram::Calendar => vec![
                rect(3.0, 4.5, 18.0, 16.5, 2.5),
                cut(5.0, 9.5, 14.0, 9.5, 1.0),
                rect(7.0, 2.5, 2.2, 4.5, 1.1),
                rect(14.8, 2.5, 2.2, 4.5, 1.1),
                rect(12.5, 12.0, 4.5, 4.5, 0.8),
            ],
            Pictogram::Note => {
                vec![rect(5.0, 3.0, 14.0, 18.0, 2.0), cut(8.0, 8.0, 8.0, 1.8, 0.9), cut(8.0, 11.6, 8.0, 1.8, 0.9), cut(8.0, 15.2, 5.0, 1.8, 0.9)]
            }
            Pictogram::Folder => {
                vec![polygon(0.0, 0.0, &[(2.5, 5.5), (9.5, 5.5), (11.5, 7.5), (21.5, 7.5), (21.5, 19.0), (2.5, 19.0)], false), cut(2.5, 9.0, 19.0, 1.2, 0.0)]
            }
            Pictogram::Gear => {
                // Eight square teeth: four points a tooth, two out and two in.
                let teeth: Vec<(f32, f32)> = (0..32)
                    .map(|i| {
                        let a = (i as f32 + 0.5) * TAU / 32.0;
                        let r = if i % 4 < 2 { 9.8 } else { 7.4 };
                        (12.0 + r * a.cos(), 12.0 + r * a.sin())
                    })
                    .collect();
                vec![polygon(0.0, 0.0, &teeth, false), circle(12.0, 12.0, 3.2, true)]
            }
            Pictogram::Clock => {
                vec![circle(12.0, 12.0, 9.5, false), circle(12.0, 12.0, 7.7, true), rect(11.1, 6.5, 1.8, 6.4, 0.9), rect(11.1, 11.1, 5.4, 1.8, 0.9)]
            }
            Pictogram::Bag => {
                // The handle: a half ring over the bag.
                let mut handle = arc(12.0, 8.5, 4.3, PI, TAU, 16);
                handle.extend(arc(12.0, 8.5, 2.6, TAU, PI, 16));
                vec![polygon(0.0, 0.0, &handle, false), rect(4.0, 8.0, 16.0, 13.0, 2.0)]
            }
            Pictogram::Cutlery => vec![
                rect(5.5, 3.0, 1.4, 6.5, 0.7),
                rect(7.8, 3.0, 1.4, 6.5, 0.7),
                rect(10.1, 3.0, 1.4, 6.5, 0.7),
                rect(5.5, 8.0, 6.0, 3.0, 1.5),
                rect(7.7, 10.0, 1.6, 11.0, 0.8),
                polygon(0.0, 0.0, &[(18.5, 3.0), (18.5, 21.0), (16.5, 21.0), (16.5, 13.5), (14.5, 12.5), (14.5, 7.0), (17.5, 3.0)], false),
            ],
            Pictogram::Car => vec![
                polygon(0.0, 0.0, &[(2.5, 12.5), (5.5, 6.0), (18.5, 6.0), (21.5, 12.5), (21.5, 17.5), (2.5, 17.5)], false),
                polygon(0.0, 0.0, &[(7.0, 7.8), (17.0, 7.8), (19.0, 11.8), (5.0, 11.8)], true),
                circle(7.0, 17.5, 2.6, false),
                circle(17.0, 17.5, 2.6, false),
            ],
            Pictogram::Train => vec![
                rect(5.0, 2.5, 14.0, 16.0, 3.5),
                cut(7.2, 5.0, 9.6, 5.5, 1.0),
                circle(8.6, 14.5, 1.3, true),
                circle(15.4, 14.5, 1.3, true),
                polygon(0.0, 0.0, &[(8.0, 18.0), (10.0, 18.0), (7.5, 21.5), (5.5, 21.5)], false),
                polygon(0.0, 0.0, &[(14.0, 18.0), (16.0, 18.0), (18.5, 21.5), (16.5, 21.5)], false),
            ],
            Pictogram::Bank => {
                let mut shapes = vec![polygon(0.0, 0.0, &[(2.0, 9.0), (12.0, 3.0), (22.0, 9.0)], false)];
                shapes.extend((0..4).map(|i| rect(4.2 + 4.4 * i as f32, 10.0, 2.4, 7.5, 0.0)));
                shapes.push(rect(2.5, 18.5, 19.0, 2.5, 0.5));
                shapes
            }
            Pictogram::Pin => {
                // An arc over the top from lower left to lower right, then the point.
                let mut pin = arc(12.0, 9.5, 6.5, PI - FRAC_PI_6, TAU + FRAC_PI_6, 24);
                pin.push((12.0, 22.0));
                vec![polygon(0.0, 0.0, &pin, false), circle(12.0, 9.5, 2.5, true)]
            }
            Pictogram::Star => {
                let points: Vec<(f32, f32)> = (0..10)
                    .map(|i| {
                        let a = -PI / 2.0 + i as f32 * PI / 5.0;
                        let r = if i % 2 == 0 { 10.0 } else { 4.2 };
                        (12.0 + r * a.cos(), 12.8 + r * a.sin())
                    })
                    .collect();
                vec![polygon(0.0, 0.0, &points, false)]
            }
            Pictogram::People => {
                // One behind the other, the front one outlined in the tile's colour.
                let mut shapes = person(16.0, 8.5, 3.2, 19.5, 6.0, false);
                shapes.extend(person(9.5, 9.0, 5.0, 20.5, 8.2, true));
                shapes.extend(person(9.5, 9.0, 3.8, 20.5, 7.0, false));
                shapes
            }
            Pictogram::MusicNote => vec![
                circle(8.5, 17.0, 3.3, false),
                rect(10.3, 4.0, 1.9, 13.2, 0.0),
                polygon(0.0, 0.0, &[(12.2, 4.0), (18.5, 6.5), (18.5, 10.0), (12.2, 7.8)], false),
            ],
            Pictogram::List => [5.0, 11.0, 17.0].iter().flat_map(|&y| [rect(3.0, y - 1.5, 3.0, 3.0, 1.5), rect(8.0, y - 1.0, 13.0, 2.0, 1.0)]).collect(),
            Pictogram::Hourglass => vec![
                rect(4.0, 2.0, 16.0, 2.0, 1.0),
                rect(4.0, 20.0, 16.0, 2.0, 1.0),
                polygon(0.0, 0.0, &[(5.5, 4.0), (18.5, 4.0), (12.0, 12.0)], false),
                polygon(0.0, 0.0, &[(12.0, 12.0), (18.5, 20.0), (5.5, 20.0)], false),
            ],
            Pictogram::Search => vec![
                circle(10.0, 10.0, 7.0, false),
                circle(10.0, 10.0, 4.6, true),
                polygon(0.0, 0.0, &[(14.3, 15.9), (15.9, 14.3), (21.0, 19.4), (19.4, 21.0)], false),
            ],
            Pictogram::Ticket => vec![
                rect(2.0, 6.0, 20.0, 12.0, 2.0),
                polygon(0.0, 0.0, &arc(2.0, 12.0, 2.6, -PI / 2.0, PI / 2.0, 12), true),
                polygon(0.0, 0.0, &arc(22.0, 12.0, 2.6, PI / 2.0, 1.5 * PI, 12), true),
                cut(14.6, 8.0, 1.0, 2.2, 0.0),
                cut(14.6, 10.9, 1.0, 2.2, 0.0),
                cut(14.6, 13.8, 1.0, 2.2, 0.0),
            ],
        }
    }
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

    #[test]
    fn a_picture_is_drawn_from_its_name_inside_its_rounded_square() {
        let names = ["Morning Light", "Paper Boats", "USB-C charger", "Desk lamp", "Pad thai", "Golden Hour", "City Rain", "Echoes"];
        let pictures: Vec<_> = names.iter().map(|n| picture(n)).collect();
        for (name, layers) in names.iter().zip(&pictures) {
            assert_eq!(*layers, picture(name), "the same name draws the same picture");
            assert!(layers.len() >= 2, "{name}: a scene over its ground");
            for (points, _) in layers {
                // Inside the square, and off its rounded corners.
                assert!(points.iter().all(|&(x, y)| (-0.01..=PICTURE + 0.01).contains(&x) && (-0.01..=PICTURE + 0.01).contains(&y)), "{name}");
                assert!(points.iter().all(|&(x, y)| x + y >= 8.0 * (1.0 - std::f32::consts::FRAC_1_SQRT_2) - 0.01), "{name}: a corner is cut");
            }
        }
        let distinct: std::collections::HashSet<String> = pictures.iter().map(|p| format!("{p:?}")).collect();
        assert!(distinct.len() >= 6, "names draw different pictures");
    }

    #[test]
    fn a_map_is_drawn_from_the_worlds_places_with_its_target_marked() {
        let places = ["Harbor Office", "City Hall", "Green Park", "The Old Mill"];
        let here = map("world 1", &places, Some("City Hall"), true, 360.0, 240.0);
        assert_eq!(here, map("world 1", &places, Some("City Hall"), true, 360.0, 240.0), "the same world, the same map");
        assert_ne!(here, map("world 2", &places, Some("City Hall"), true, 360.0, 240.0), "another world, other streets");
        // Every place has a pin; the target's (red) is drawn last, over the others.
        let pins = here.iter().filter(|(_, rgb)| *rgb == PIN || *rgb == OTHER_PIN).count();
        assert_eq!(pins, 2 * places.len());
        assert_eq!(here.iter().rev().nth(1).map(|(_, rgb)| *rgb), Some(PIN));
        // Pins stand inside the map; a route only when asked for.
        assert!(here.iter().filter(|(_, rgb)| *rgb == PIN).flat_map(|(p, _)| p).all(|&(x, y)| (0.0..=360.0).contains(&x) && (0.0..=240.0).contains(&y)));
        assert!(here.iter().any(|(_, rgb)| *rgb == ROUTE));
        assert!(!map("world 1", &places, Some("City Hall"), false, 360.0, 240.0).iter().any(|(_, rgb)| *rgb == ROUTE));
    }

    #[test]
    fn a_convex_polygon_is_cut_to_a_convex_window() {
        let square = vec![(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)];
        let diamond = [(5.0, -2.0), (12.0, 5.0), (5.0, 12.0), (-2.0, 5.0)];
        let cut = clip_convex(square.clone(), &diamond);
        // The square's corners outside the diamond are cut off: an octagon-like shape, all inside both.
        assert_eq!(cut.len(), 8, "{cut:?}");
        for &(x, y) in &cut {
            assert!((-0.01..=10.01).contains(&x) && (-0.01..=10.01).contains(&y));
            assert!((x - 5.0).abs() + (y - 5.0).abs() <= 7.01, "({x}, {y}) outside the diamond");
        }
        assert!(clip_convex(square, &[(20.0, 20.0), (30.0, 20.0), (30.0, 30.0), (20.0, 30.0)]).is_empty());
    }

    #[test]
    fn an_avatar_shows_initials_on_a_colour_of_the_name() {
        assert_eq!(avatar("Rosa Walsh").0, "RW");
        assert_eq!(avatar("  élodie  de la Cruz").0, "ÉD");
        assert_eq!(avatar("").0, "?");
        assert_eq!(avatar("Rosa Walsh").1, avatar("Rosa Walsh").1);
        let colours: std::collections::BTreeSet<_> = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"].iter().map(|n| avatar(n).1).collect();
        assert!(colours.len() > 3, "names spread over the colours: {colours:?}");
    }

    #[test]
    fn pictograms_fill_their_square_and_differ() {
        use Pictogram::*;
        let all = [
            Person, Chat, Envelope, Calendar, Note, Folder, Gear, Clock, Bag, Cutlery, Car, Train, Bank, Pin, Star, People, MusicNote, List, Hourglass, Search,
            Ticket,
        ];
        let mut seen = Vec::new();
        for p in all {
            let shapes = p.shapes(10.0, 20.0, 48.0);
            assert!(shapes.iter().any(|s| !matches!(s, Shape::Rect { cut: true, .. } | Shape::Polygon { cut: true, .. })), "{p:?}");
            let points: Vec<(f32, f32)> = shapes
                .iter()
                .flat_map(|s| match s {
                    Shape::Rect { x, y, w, h, .. } => vec![(*x, *y), (x + w, y + h)],
                    Shape::Polygon { points, .. } => points.clone(),
                })
                .collect();
            assert!(points.iter().all(|(x, y)| (10.0..=58.0).contains(x) && (20.0..=68.0).contains(y)), "{p:?} leaves its square");
            // Each covers most of its square (no pictogram shrunk to a dot).
            let (x0, x1) = points.iter().fold((f32::MAX, f32::MIN), |(a, b), (x, _)| (a.min(*x), b.max(*x)));
            assert!(x1 - x0 > 24.0, "{p:?}");
            assert!(!seen.contains(&shapes), "{p:?} repeats another");
            seen.push(shapes);
        }
    }
}
