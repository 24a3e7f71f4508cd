//! Worlds stay put: each app fills its data from its own random stream, so adding an app (or
//! changing how one is filled) changes no other app's data in any world. The data each app
//! gets in a few worlds is pinned by hash; a change to one is deliberate and updates its pin.

use guigym_core::{sha256_hex, Rng};
use guigym_phone::apps::{AppData, INSTALLERS};
use guigym_phone::install::{self, Installer};
use guigym_phone::World;

/// Each app's data in a world: what its installer alone puts into empty data, hashed.
fn app_hashes(seed: u64) -> Vec<(String, String)> {
    let w = World::generate(seed);
    INSTALLERS
        .iter()
        .map(|(app, fill)| {
            let mut d = AppData::default();
            fill(&w, &mut d, &mut Rng::derive(w.seed, &format!("install:{app}")));
            (app.to_string(), sha256_hex(serde_json::to_string(&d).unwrap_or_default().as_bytes())[..16].to_string())
        })
        .collect()
}

const PINNED: &[(u64, &str)] = &[
    (7, "maps:112656c4810d1c7b notes:f71970947c9de914 files:9a4725326c12cd28 settings:041fde9f5be37f10 clock:845a61bb0adb1e52 shop:2af1ec8bcf6006cc food:2e36a06d0b416b5a ride:52066c1bfb0ca458 train:761b1a5df9f5a9cf bank:1c8b49acf1993078 reviews:8a4dbb49440aad1b social:d9e22cc91d17a951 music:3d1791e230fce2f2 mail:ee8ee1a64ffca231"),
    (424_242, "maps:1b4da0402e0b81c0 notes:382f28b310efe341 files:cecd2b4346814d10 settings:700119cf3c075b6d clock:39438c5c2f4bbe68 shop:13468717e937bca9 food:2e36a06d0b416b5a ride:d646497953cbe6a5 train:3958782bfc84643d bank:05221cc5ec83916f reviews:fb7b791a2cd500d8 social:171b63e1c3c2d179 music:470b5b8541c4ff42 mail:618d0c71c8a2d68d"),
];

#[test]
fn every_apps_data_in_pinned_worlds_is_unchanged() {
    for (seed, pinned) in PINNED {
        let now: Vec<String> = app_hashes(*seed).iter().map(|(a, h)| format!("{a}:{h}")).collect();
        assert_eq!(now.join(" "), *pinned, "world {seed}: an app's data changed; if that is meant, update its pin");
    }
}

/// A new app that draws heavily from its own stream, installed before all others.
fn newcomer(_w: &World, _d: &mut guigym_phone::state::AppData, rng: &mut Rng) {
    for _ in 0..10_000 {
        rng.next_u64();
    }
}

#[test]
fn adding_an_app_leaves_every_existing_worlds_data_unchanged() {
    let with: Vec<(&str, Installer)> = std::iter::once(("newcomer", newcomer as Installer)).chain(INSTALLERS.iter().copied()).collect();
    for seed in [1, 7, 99, 424_242, 999_999] {
        let w = World::generate(seed);
        let (mut before, mut after) = (AppData::default(), AppData::default());
        install::every_app(&w, &mut before);
        install::install_with(&w, &mut after, &with);
        assert_eq!(serde_json::to_string(&before).unwrap_or_default(), serde_json::to_string(&after).unwrap_or_default(), "world {seed}");
    }
}
