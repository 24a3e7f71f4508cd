//! Codec tests: examples in each convention, garbage as invalid actions, no panics on any
//! input, and encode → parse round trips.

use guigym_core::{Action, Bounds, Direction, Observation, Point, TerminateStatus, UiNode};
use proptest::prelude::*;

use super::*;

fn screen() -> Observation {
    let node = |id: &str, role: &str, x, y, clickable| UiNode {
        id: id.into(),
        role: role.into(),
        bounds: Bounds { x, y, w: 200, h: 100 },
        clickable,
        enabled: true,
        ..Default::default()
    };
    Observation {
        ui_tree: vec![node("root", "container", 0, 0, false), node("save", "button", 100, 300, true), node("name", "textfield", 100, 500, true)],
        width: 1080,
        height: 2400,
        screen: "Contacts/new".into(),
        ..Default::default()
    }
}

#[test]
fn parses_each_convention_with_reasoning_around_it() {
    let obs = screen();
    let cases: Vec<(Codec, &str, Action)> = vec![
        (Codec::CANONICAL, "Thought: save.\n```json\n{\"action\": \"click\", \"element\": \"save\"}\n```", Action::click_element("save")),
        (
            Codec::QWEN,
            "I will tap.\n<tool_call>\n{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"click\", \"coordinate\": [200, 350]}}\n</tool_call>",
            Action::click_at(200.0, 350.0),
        ),
        (Codec::QWEN, "<tool_call>{\"name\":\"mobile_use\",\"arguments\":{\"action\":\"system_button\",\"button\":\"Back\"}}</tool_call>", Action::Back),
        (Codec::ANDROID_WORLD, "Reason: tap save. Action: {\"action_type\": \"click\", \"index\": 1}", Action::click_element("save")),
        (Codec::ANDROID_WORLD, "{\"action_type\": \"status\", \"goal_status\": \"infeasible\"}", Action::Terminate { status: TerminateStatus::Infeasible }),
        (
            Codec::ANDROID_WORLD,
            "{\"action_type\": \"input_text\", \"text\": \"Ana\", \"index\": 2}",
            Action::Type { text: "Ana".into(), element: Some("name".into()), clear: false },
        ),
        (
            Codec::ANTHROPIC,
            "{\"type\": \"tool_use\", \"name\": \"computer\", \"input\": {\"action\": \"left_click\", \"coordinate\": [10, 20]}}",
            Action::click_at(10.0, 20.0),
        ),
        (Codec::ANTHROPIC, "{\"action\": \"key\", \"text\": \"ctrl+s\"}", Action::Key { keys: vec!["ctrl".into(), "s".into()] }),
        (Codec::PYAUTOGUI, "```python\npyautogui.click(x=10, y=20)\n```", Action::click_at(10.0, 20.0)),
        (
            Codec::PYAUTOGUI,
            "pyautogui.scroll(-3, x=540, y=1200)",
            Action::Scroll { at: Some(Point(540.0, 1200.0)), element: None, direction: Direction::Down, amount: 3 },
        ),
        (Codec::PYAUTOGUI, "All set. DONE", Action::Terminate { status: TerminateStatus::Success }),
        (Codec::PYAUTOGUI, "pyautogui.write('it\\'s 5 o\\'clock')", Action::Type { text: "it's 5 o'clock".into(), element: None, clear: false }),
    ];
    for (codec, raw, want) in cases {
        assert_eq!(codec.parse(raw, &obs).unwrap_or_else(|e| panic!("{codec:?} {raw}: {e}")), want, "{codec:?} {raw}");
    }
}

#[test]
fn garbage_and_unsupported_actions_are_invalid() {
    let obs = screen();
    for codec in Codec::ALL {
        for raw in ["", "tap the blue button", "{{{{", "<tool_call>{\"arguments\": 7}</tool_call>", "{\"action\": 3}"] {
            assert!(codec.parse(raw, &obs).is_err(), "{codec:?} accepted {raw:?}");
        }
    }
    let err = Codec::ANTHROPIC.parse("{\"action\": \"mouse_move\", \"coordinate\": [1, 2]}", &obs).unwrap_err();
    assert!(err.message.contains("not supported"), "{}", err.message);
    let err = Codec::ANDROID_WORLD.parse("{\"action_type\": \"click\", \"index\": 99}", &obs).unwrap_err();
    assert!(err.message.contains("index 99"), "{}", err.message);
    let err = Codec::PYAUTOGUI.parse("pyautogui.click(x=__import__('os'), y=1)", &obs).unwrap_err();
    assert!(err.message.contains("only literals"), "{}", err.message);
}

fn key() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["enter", "ctrl", "s", "shift", "tab", "a", "escape", "backspace"]).prop_map(String::from)
}

fn coord() -> impl Strategy<Value = f32> {
    (0u32..2000).prop_map(|v| v as f32)
}

fn pt() -> impl Strategy<Value = Point> {
    (coord(), coord()).prop_map(|(x, y)| Point(x, y))
}

fn target() -> impl Strategy<Value = (Option<Point>, Option<String>)> {
    prop_oneof![pt().prop_map(|p| (Some(p), None)), prop::sample::select(vec!["save", "name"]).prop_map(|e| (None, Some(e.to_string())))]
}

fn direction() -> impl Strategy<Value = Direction> {
    prop::sample::select(vec![Direction::Up, Direction::Down, Direction::Left, Direction::Right])
}

fn status() -> impl Strategy<Value = TerminateStatus> {
    prop::sample::select(vec![TerminateStatus::Success, TerminateStatus::Failure, TerminateStatus::Infeasible])
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        target().prop_map(|(at, element)| Action::Click { at, element }),
        target().prop_map(|(at, element)| Action::DoubleClick { at, element }),
        target().prop_map(|(at, element)| Action::LongPress { at, element }),
        target().prop_map(|(at, element)| Action::RightClick { at, element }),
        (pt(), pt()).prop_map(|(from, to)| Action::Drag { from, to }),
        (pt(), pt()).prop_map(|(from, to)| Action::Swipe { from, to }),
        (target(), direction(), 1u32..20).prop_map(|((at, element), direction, amount)| Action::Scroll { at, element, direction, amount }),
        (".{0,40}", any::<bool>(), prop::option::of(prop::sample::select(vec!["name"]))).prop_map(|(text, clear, e)| Action::Type {
            text,
            element: e.map(String::from),
            clear
        }),
        prop::collection::vec(key(), 1..3).prop_map(|keys| Action::Key { keys }),
        Just(Action::Back),
        Just(Action::Home),
        "[A-Za-z ]{1,12}".prop_map(|name| Action::OpenApp { name }),
        (0u64..600_000).prop_map(|ms| Action::Wait { ms }),
        ".{0,40}".prop_map(|text| Action::Answer { text }),
        ".{0,40}".prop_map(|text| Action::AskUser { text }),
        status().prop_map(|status| Action::Terminate { status }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn no_input_makes_a_codec_panic(s in ".{0,300}") {
        let obs = screen();
        for codec in Codec::ALL {
            let _ = codec.parse(&s, &obs);
        }
    }

    #[test]
    fn truncated_and_spliced_encodings_never_panic(a in action(), cut in 0usize..400, junk in ".{0,20}") {
        let obs = screen();
        for codec in Codec::ALL {
            if let Some(text) = codec.encode(&a, &obs) {
                let cut = text.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(text.len());
                let mangled = format!("{}{}{}", &text[..cut], junk, &text[cut..]);
                let _ = codec.parse(&text[..cut], &obs);
                let _ = codec.parse(&mangled, &obs);
            }
        }
    }

    #[test]
    fn encode_then_parse_round_trips(a in action()) {
        let obs = screen();
        for codec in Codec::ALL {
            let encoded = codec.encode(&a, &obs);
            prop_assert!(encoded.is_some(), "{codec:?} cannot encode {a:?}");
            let parsed = codec.parse(encoded.as_deref().unwrap_or(""), &obs);
            // Conventions that cannot name elements carry their centres instead.
            let want = if codec.names_elements() { a.clone() } else { resolve_elements(&a, &obs).unwrap_or(a.clone()) };
            prop_assert_eq!(parsed.as_ref().ok(), Some(&want), "{:?}: {:?} → {:?} → {:?}", codec, a, encoded, parsed);
        }
    }
}

#[test]
fn a_reply_holds_exactly_one_action() {
    let obs = screen();
    for (codec, raw) in [
        (Codec::CANONICAL, "{\"action\": \"back\"} and then {\"action\": \"home\"}"),
        (Codec::QWEN, "<tool_call>{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"system_button\", \"button\": \"Back\"}}</tool_call><tool_call>{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"system_button\", \"button\": \"Home\"}}</tool_call>"),
        (Codec::ANTHROPIC, "{\"action\": \"back\"}\n{\"action\": \"home\"}"),
        (Codec::PYAUTOGUI, "pyautogui.back()\npyautogui.home()"),
        (Codec::UI_TARS, "Action: press_back()\npress_home()"),
    ] {
        let err = codec.parse(raw, &obs).unwrap_err();
        assert!(err.message.contains("2 actions"), "{codec:?}: {}", err.message);
    }
    // An action in the text beside a tool call is a second action too.
    let both = "{\"action\": \"system_button\", \"button\": \"Back\"}\n<tool_call>{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"system_button\", \"button\": \"Home\"}}</tool_call>";
    assert!(Codec::QWEN.parse(both, &obs).unwrap_err().message.contains("2 actions"));
    assert!(Codec::CANONICAL.parse("I think so.\n<tool_call>{\"name\": \"act\", \"arguments\": {\"action\": \"back\"}}</tool_call>", &obs).is_ok());
    // A JSON object that is not an action (reasoning written as JSON) does not count.
    assert_eq!(Codec::CANONICAL.parse("{\"thought\": \"go back\"} {\"action\": \"back\"}", &obs).unwrap(), Action::Back);
}

#[test]
fn actions_outside_the_limits_are_invalid() {
    assert!(Action::Key { keys: vec![] }.check().is_err(), "an empty key list presses nothing");
    assert!(Action::Key { keys: vec!["a".into(); 10_000] }.check().is_err());
    assert!(Action::Key { keys: vec!["".into()] }.check().is_err());
    assert!(Action::Type { text: "x".repeat(6000), element: None, clear: false }.check().is_err());
    assert!(Action::Key { keys: vec!["ctrl".into(), "s".into()] }.check().is_ok());
    let obs = screen();
    let hotkey = format!("pyautogui.hotkey({})", vec!["'a'"; 10_000].join(", "));
    let parsed = Codec::PYAUTOGUI.parse(&hotkey, &obs).unwrap();
    assert!(parsed.check().unwrap_err().message.len() < 200, "the message stays short");
    assert!(Codec::QWEN
        .parse("<tool_call>{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"key\", \"keys\": []}}</tool_call>", &obs)
        .unwrap()
        .check()
        .is_err());
}

#[test]
fn every_codec_is_named_once_and_configs_spell_it_by_name() {
    let names: Vec<&str> = Codec::ALL.iter().map(|c| c.name()).collect();
    let unique: std::collections::BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len(), "two codecs share a name: {names:?}");
    for codec in Codec::ALL {
        let json = serde_json::to_string(&codec).unwrap();
        assert_eq!(json, format!("\"{}\"", codec.name()));
        assert_eq!(serde_json::from_str::<Codec>(&json).unwrap(), codec);
        assert_eq!(Codec::named(codec.name()), Some(codec));
        assert!(!codec.describe().is_empty());
    }
    let err = serde_json::from_str::<Codec>("\"qwen3\"").unwrap_err().to_string();
    assert!(err.contains("unknown codec") && err.contains("ui_tars"), "{err}");
}
