//! Key names (as agents write them: pyautogui's and xdotool's) and characters as X keysyms.

use x11rb::protocol::xproto::Keysym;

pub const SHIFT: Keysym = 0xffe1;

/// The keysym of a key name, case-insensitively: modifiers, editing and navigation keys,
/// function keys, and any single character.
pub fn keysym(name: &str) -> Option<Keysym> {
    let lower = name.trim().to_lowercase();
    let sym = match lower.as_str() {
        "ctrl" | "control" | "ctrlleft" | "control_l" | "ctrl_l" => 0xffe3,
        "ctrlright" | "control_r" => 0xffe4,
        "shift" | "shiftleft" | "shift_l" => SHIFT,
        "shiftright" | "shift_r" => 0xffe2,
        "alt" | "altleft" | "alt_l" | "option" => 0xffe9,
        "altright" | "alt_r" | "altgr" => 0xffea,
        "super" | "win" | "winleft" | "meta" | "cmd" | "command" | "super_l" => 0xffeb,
        "enter" | "return" | "\n" => 0xff0d,
        "tab" | "\t" => 0xff09,
        "esc" | "escape" => 0xff1b,
        "backspace" => 0xff08,
        "delete" | "del" => 0xffff,
        "insert" => 0xff63,
        "home" => 0xff50,
        "end" => 0xff57,
        "pageup" | "page_up" | "prior" => 0xff55,
        "pagedown" | "page_down" | "next" => 0xff56,
        "left" => 0xff51,
        "up" => 0xff52,
        "right" => 0xff53,
        "down" => 0xff54,
        "space" | "spacebar" => 0x20,
        "capslock" => 0xffe5,
        "menu" | "apps" => 0xff67,
        "printscreen" | "print" => 0xff61,
        _ => {
            if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u32>().ok()).filter(|n| (1..=24).contains(n)) {
                return Some(0xffbe + n - 1);
            }
            let mut chars = name.chars();
            return match (chars.next(), chars.next()) {
                (Some(c), None) => Some(char_keysym(c)),
                _ => None,
            };
        }
    };
    Some(sym)
}

/// The keysym that types a character: Latin-1 directly, control characters as their keys,
/// anything else as a Unicode keysym (0x0100_0000 + code point).
pub fn char_keysym(c: char) -> Keysym {
    match c {
        '\n' | '\r' => 0xff0d,
        '\t' => 0xff09,
        '\u{8}' => 0xff08,
        ' '..='~' | '\u{a0}'..='\u{ff}' => c as u32,
        c => 0x0100_0000 + c as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_characters_map_to_keysyms() {
        assert_eq!(keysym("Ctrl"), Some(0xffe3));
        assert_eq!(keysym("enter"), Some(0xff0d));
        assert_eq!(keysym("F5"), Some(0xffc2));
        assert_eq!(keysym("a"), Some(0x61));
        assert_eq!(keysym("A"), Some(0x41));
        assert_eq!(keysym("nosuchkey"), None);
        assert_eq!(char_keysym('é'), 0xe9);
        assert_eq!(char_keysym('€'), 0x0100_20ac);
        assert_eq!(char_keysym('\n'), 0xff0d);
    }
}
