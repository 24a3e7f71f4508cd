//! Worlds: a persona and a scenario that, from one seed, populate every app with the same
//! people, events and facts. A world is data only; `DeviceState::from_world` installs it.

use guigym_core::Rng;
use serde::{Deserialize, Serialize};

use crate::time::{self, Minutes, DAY};

const FIRST: [&str; 24] = [
    "Ana", "Ben", "Chloe", "David", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kira", "Liam", "Maya", "Noah", "Olga", "Pedro", "Quinn", "Rosa",
    "Samir", "Tara", "Umar", "Vera", "Wen", "Yusuf",
];
const LAST: [&str; 20] = [
    "Ruiz", "Okafor", "Martin", "Kowalski", "Silva", "Haddad", "Lee", "Moreau", "Costa", "Berg", "Tanaka", "Walsh", "Novak", "Patel", "Ivanova", "Garcia",
    "Fischer", "Nakamura", "Osei", "Larsen",
];
const PLACES: [&str; 10] =
    ["Room 4B", "Cafe Lumen", "Harbor Office", "Main Library", "Studio 9", "Green Park", "Hotel Astra", "Room 2A", "City Hall", "The Old Mill"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scenario {
    BusinessTrip,
    FamilyBirthday,
    NewJob,
    MovingHouse,
}

impl Scenario {
    const ALL: [Scenario; 4] = [Scenario::BusinessTrip, Scenario::FamilyBirthday, Scenario::NewJob, Scenario::MovingHouse];

    pub fn name(self) -> &'static str {
        match self {
            Scenario::BusinessTrip => "business trip",
            Scenario::FamilyBirthday => "family birthday",
            Scenario::NewJob => "new job",
            Scenario::MovingHouse => "moving house",
        }
    }

    /// Topics of meetings and events this scenario brings.
    fn topics(self) -> &'static [&'static str] {
        match self {
            Scenario::BusinessTrip => &[
                "client meeting",
                "budget review",
                "project kickoff",
                "supplier call",
                "team dinner",
                "airport pickup",
                "contract signing",
                "trade fair visit",
            ],
            Scenario::FamilyBirthday => {
                &["cake tasting", "party planning", "gift shopping", "birthday lunch", "venue visit", "choir rehearsal", "photo session", "decorations run"]
            }
            Scenario::NewJob => {
                &["onboarding session", "team standup", "HR appointment", "laptop pickup", "mentor chat", "security training", "welcome lunch", "design review"]
            }
            Scenario::MovingHouse => &[
                "flat viewing",
                "movers quote",
                "key handover",
                "internet install",
                "furniture delivery",
                "landlord meeting",
                "painting job",
                "cleaning visit",
            ],
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Person {
    pub first: String,
    pub last: String,
    pub phone: String,
    pub email: String,
    pub relation: String,
}

impl Person {
    pub fn name(&self) -> String {
        format!("{} {}", self.first, self.last)
    }
}

/// A dated happening that may appear in the calendar, in mail, in messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Happening {
    pub topic: String,
    pub start: Minutes,
    pub duration_min: i64,
    pub place: String,
    /// Index into `World::people`.
    pub with: usize,
    /// Already in the calendar, or only mentioned in mail.
    pub in_calendar: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct World {
    pub seed: u64,
    pub user: Person,
    pub scenario: Scenario,
    /// Virtual time at reset.
    pub now: Minutes,
    pub people: Vec<Person>,
    pub happenings: Vec<Happening>,
    /// Names that appear nowhere in the world (for infeasible and new-contact tasks).
    pub strangers: Vec<(String, String)>,
    /// Where the user lives and where the scenario takes them (train stations).
    pub home_city: String,
    pub trip_city: String,
    /// The day of the trip (midnight), announced by mail.
    pub trip_day: Minutes,
    /// Money people asked the user to pay back, by message.
    pub debts: Vec<Debt>,
    /// A code the user keeps in a note (door, locker or gate), by place.
    pub codes: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Debt {
    /// Index into `World::people`.
    pub with: usize,
    pub cents: i64,
    pub reason: String,
}

/// Train stations of the train app, and the cities of worlds.
pub const STATIONS: [&str; 10] = ["Northport", "Eastfield", "Southbay", "Westmere", "Lakeside", "Hillcrest", "Riverton", "Stonebridge", "Ashford", "Kingsley"];
pub const WORLD_PLACES: [&str; 10] = PLACES;
const DEBT_REASONS: [&str; 6] = ["concert tickets", "the taxi", "groceries", "the birthday gift", "lunch", "the train fare"];

impl World {
    /// The world of a seed: the same seed always gives the same world.
    pub fn generate(seed: u64) -> World {
        let mut rng = Rng::derive(seed, "world");
        let scenario = *rng.pick(&Scenario::ALL);
        let mut firsts: Vec<&str> = FIRST.to_vec();
        rng.shuffle(&mut firsts);
        let mut lasts: Vec<&str> = LAST.to_vec();
        rng.shuffle(&mut lasts);
        let person = |i: usize, rng: &mut Rng, relation: &str| {
            let (f, l) = (firsts[i], lasts[i % lasts.len()]);
            Person {
                first: f.to_string(),
                last: l.to_string(),
                phone: format!("+1 555 {:03} {:04}", 100 + i * 37 % 900, rng.range(1000, 9999)),
                email: format!("{}.{}@example.com", f.to_lowercase(), l.to_lowercase()),
                relation: relation.to_string(),
            }
        };
        let user = person(0, &mut rng, "self");
        let relations = ["colleague", "friend", "family", "neighbour"];
        let people: Vec<Person> = (1..=12).map(|i| person(i, &mut rng, relations[i % 4])).collect();
        let strangers = (13..18).map(|i| (firsts[i].to_string(), lasts[(i + 7) % lasts.len()].to_string())).collect();

        // Reset time: a morning in 2026, the day seeded.
        let day = time::days_from_civil(2026, 3, 2) + rng.range(0, 250);
        let now = day * DAY + 8 * 60 + rng.range(0, 3) * 15;
        let mut topics: Vec<&str> = scenario.topics().to_vec();
        rng.shuffle(&mut topics);
        let happenings = topics
            .iter()
            .enumerate()
            .map(|(i, topic)| Happening {
                topic: topic.to_string(),
                start: (day + 1 + i as i64 + rng.range(0, 2)) * DAY + rng.range(18, 36) * 30,
                duration_min: *rng.pick(&[30, 45, 60, 90]),
                place: rng.pick(&PLACES).to_string(),
                with: rng.below(people.len()),
                in_calendar: i % 2 == 0,
            })
            .collect();
        // Later additions draw from their own stream, so older facts of a seed never move.
        let mut more = Rng::derive(seed, "world.more");
        let mut cities = STATIONS.to_vec();
        more.shuffle(&mut cities);
        let trip_day = (day + more.range(3, 12)) * DAY;
        let mut reasons = DEBT_REASONS.to_vec();
        more.shuffle(&mut reasons);
        let debts = (0..2)
            .map(|i| Debt { with: 4 + i * 3 + more.below(2), cents: more.range(8, 96) * 50 + more.range(0, 1) * 25, reason: reasons[i].to_string() })
            .collect();
        let mut code_places = PLACES.to_vec();
        more.shuffle(&mut code_places);
        let codes = code_places.iter().take(3).map(|p| (p.to_string(), format!("{}", more.range(1000, 9999)))).collect();
        World {
            seed,
            user,
            scenario,
            now,
            people,
            happenings,
            strangers,
            home_city: cities[0].to_string(),
            trip_city: cities[1].to_string(),
            trip_day,
            debts,
            codes,
        }
    }

    pub fn person(&self, index: usize) -> &Person {
        &self.people[index % self.people.len()]
    }

    /// The world in words: persona, scenario, people, happenings and where each fact lives.
    pub fn describe(&self) -> String {
        let mut out = format!(
            "world {} · {} ({}) · scenario: {} · now {}\n\npeople\n",
            self.seed,
            self.user.name(),
            self.user.email,
            self.scenario.name(),
            time::short(self.now)
        );
        for p in &self.people {
            out.push_str(&format!("  {:<18} {:<10} {:<17} {}\n", p.name(), p.relation, p.phone, p.email));
        }
        out.push_str("\nhappenings (each announced by mail from the person it is with)\n");
        for h in &self.happenings {
            out.push_str(&format!(
                "  {:<20} {} · {} min · {:<12} with {:<18} {}\n",
                h.topic,
                time::short(h.start),
                h.duration_min,
                h.place,
                self.person(h.with).name(),
                if h.in_calendar { "in calendar" } else { "mail only" }
            ));
        }
        out.push_str(&format!(
            "\ntravel\n  home {} · trip to {} on {} (mail \"Travel plan\")\n",
            self.home_city,
            self.trip_city,
            time::date_iso(self.trip_day)
        ));
        out.push_str("\nmoney owed (asked for in Messages, paid in Bank)\n");
        for d in &self.debts {
            out.push_str(&format!("  {:<18} {} for {}\n", self.person(d.with).name(), crate::money(d.cents), d.reason));
        }
        out.push_str("\ncodes (in Notes)\n");
        for (place, code) in &self.codes {
            out.push_str(&format!("  {place}: {code}\n"));
        }
        out.push_str("\nstrangers (in no app)\n  ");
        out.push_str(&self.strangers.iter().map(|(f, l)| format!("{f} {l}")).collect::<Vec<_>>().join(", "));
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_world_and_seeds_differ() {
        assert_eq!(World::generate(3), World::generate(3));
        assert_ne!(World::generate(3), World::generate(4));
    }

    #[test]
    fn people_are_distinct_and_strangers_are_not_people() {
        for seed in 0..50 {
            let w = World::generate(seed);
            let mut names: Vec<String> = w.people.iter().map(|p| p.name()).collect();
            names.push(w.user.name());
            let n = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), n, "seed {seed}");
            for (f, _) in &w.strangers {
                assert!(w.people.iter().all(|p| &p.first != f), "seed {seed}");
            }
            assert!(w.happenings.iter().all(|h| h.start > w.now));
        }
    }
}
