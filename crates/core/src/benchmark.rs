//! Benchmarks: named collections of tasks in suites. How a benchmark's tasks are set up and
//! judged is said through the interface of the platform that plays them
//! (`guigym_phone::benchmark::PhoneBenchmark`, `guigym_web::PageBenchmark`,
//! `guigym_desktop::DesktopBenchmark`); a backend is given the benchmarks it hosts as one
//! `Hosted` value of its platform's interface.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::{Action, TaskSpec};

/// A solution derived from a task's walkthrough for the mutation audit of its verifier, and
/// what the verifier must say of it: right solutions (`must_pass`) must pass, wrong ones fail.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditCase {
    /// The rule it tests (`answer_hedged`, `side_effect_elsewhere`, …).
    pub rule: &'static str,
    pub must_pass: bool,
    pub actions: Vec<Action>,
}

/// A benchmark as every command sees it: its name, its suites and its tasks.
pub trait Benchmark: Send + Sync {
    /// The name tasks carry in `TaskSpec::benchmark`.
    fn name(&self) -> &str;
    fn suites(&self) -> Vec<String>;
    /// The tasks of a suite of this benchmark; the error says why they cannot be had here
    /// (an unknown suite, a benchmark whose files are not installed).
    fn suite(&self, name: &str) -> Result<Vec<TaskSpec>, String>;
    /// One task by id.
    fn task(&self, id: &str) -> Option<TaskSpec>;
    /// The split a task belongs to (`train`, `test`, …), where the benchmark has splits.
    fn split(&self, _task: &TaskSpec) -> Option<String> {
        None
    }
    /// The audit's cases that only the benchmark knows how to make (its tasks' parameters, its
    /// apps): a side effect elsewhere, a wrong or hedged answer, a question asked too late, …
    /// The audit adds the cases any walkthrough gives.
    fn audit_cases(&self, _task: &TaskSpec) -> Vec<AuditCase> {
        Vec::new()
    }
}

/// The benchmarks of one platform a backend hosts (`Hosted<dyn PhoneBenchmark>`, …): a value the
/// binary builds in one place (its registry) and hands to each backend of that platform.
pub struct Hosted<B: ?Sized + 'static>(Arc<[&'static B]>);

impl<B: ?Sized + Benchmark + 'static> Hosted<B> {
    pub fn new(benchmarks: impl IntoIterator<Item = &'static B>) -> Hosted<B> {
        Hosted(benchmarks.into_iter().collect())
    }

    /// The benchmark of that name.
    pub fn find(&self, name: &str) -> Option<&'static B> {
        self.0.iter().copied().find(|b| b.name() == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &'static B> + '_ {
        self.0.iter().copied()
    }

    /// The names, for a message that says what is hosted.
    pub fn names(&self) -> Vec<&str> {
        self.0.iter().map(|b| b.name()).collect()
    }
}

// By hand: a derive would ask `B: Clone` / `B: Default`, which a trait object is not.
impl<B: ?Sized> Clone for Hosted<B> {
    fn clone(&self) -> Self {
        Hosted(self.0.clone())
    }
}

impl<B: ?Sized> Default for Hosted<B> {
    fn default() -> Self {
        Hosted(Arc::from(Vec::new()))
    }
}

impl<B: ?Sized + Benchmark> std::fmt::Debug for Hosted<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().map(|b| b.name())).finish()
    }
}

/// Every benchmark a binary knows and the backends that host each: where commands and routes look
/// suites and tasks up. Suites are namespaced by benchmark: a suite is named `benchmark:suite`
/// (`phone:smoke`), or by its own name alone where only one benchmark has a suite of that name.
#[derive(Clone, Default)]
pub struct Catalogue {
    benchmarks: Vec<&'static dyn Benchmark>,
    /// The backends that host each benchmark, by the benchmark's name.
    hosts: BTreeMap<String, Vec<String>>,
}

impl Catalogue {
    /// The benchmarks, and which backends host a benchmark (by name).
    pub fn new(benchmarks: Vec<&'static dyn Benchmark>, hosts: impl Fn(&str) -> Vec<String>) -> Catalogue {
        let hosts = benchmarks.iter().map(|b| (b.name().to_string(), hosts(b.name()))).collect();
        Catalogue { benchmarks, hosts }
    }

    pub fn benchmarks(&self) -> &[&'static dyn Benchmark] {
        &self.benchmarks
    }

    pub fn benchmark(&self, name: &str) -> Option<&'static dyn Benchmark> {
        self.benchmarks.iter().copied().find(|b| b.name() == name)
    }

    /// The backends that host a benchmark.
    pub fn hosts(&self, benchmark: &str) -> &[String] {
        self.hosts.get(benchmark).map_or(&[], Vec::as_slice)
    }

    /// Every suite by its full name, `benchmark:suite`.
    pub fn qualified_suites(&self) -> Vec<String> {
        qualified(&self.benchmarks)
    }

    /// Which benchmark's suite a name means, and the suite's name within it.
    pub fn resolve_suite<'n>(&self, name: &'n str) -> Result<(&'static dyn Benchmark, &'n str), String> {
        match name.split_once(':') {
            Some((benchmark, suite)) => {
                let b = self.benchmark(benchmark).ok_or_else(|| {
                    let known: Vec<&str> = self.benchmarks.iter().map(|b| b.name()).collect();
                    format!("unknown benchmark \"{benchmark}\" in suite \"{name}\"; benchmarks: {}", known.join(", "))
                })?;
                if !b.suites().iter().any(|s| s == suite) {
                    return Err(format!("benchmark \"{benchmark}\" has no suite \"{suite}\"; its suites: {}", qualified(&[b]).join(", ")));
                }
                Ok((b, suite))
            }
            None => {
                let having: Vec<&'static dyn Benchmark> = self.benchmarks.iter().copied().filter(|b| b.suites().iter().any(|s| s == name)).collect();
                match having.as_slice() {
                    [b] => Ok((*b, name)),
                    [] => Err(format!("unknown suite \"{name}\"; suites: {}", self.qualified_suites().join(", "))),
                    many => {
                        let full: Vec<String> = many.iter().map(|b| format!("{}:{name}", b.name())).collect();
                        Err(format!("suite \"{name}\" is in more than one benchmark; name one of {}", full.join(", ")))
                    }
                }
            }
        }
    }

    /// A suite's tasks and the benchmark they belong to.
    pub fn suite(&self, name: &str) -> Result<(&'static dyn Benchmark, Vec<TaskSpec>), String> {
        let (benchmark, suite) = self.resolve_suite(name)?;
        Ok((benchmark, benchmark.suite(suite)?))
    }

    /// One task by id, from whichever benchmark has it.
    pub fn task(&self, id: &str) -> Option<TaskSpec> {
        self.benchmarks.iter().find_map(|b| b.task(id))
    }

    /// The split a task belongs to, where its benchmark has splits.
    pub fn split(&self, task: &TaskSpec) -> Option<String> {
        self.benchmark(&task.benchmark).and_then(|b| b.split(task))
    }
}

fn qualified(benchmarks: &[&'static dyn Benchmark]) -> Vec<String> {
    benchmarks.iter().flat_map(|b| b.suites().into_iter().map(move |s| format!("{}:{s}", b.name()))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A benchmark with the suites named and no tasks, for the suite lookup.
    struct Fixture(&'static str, &'static [&'static str]);

    impl Benchmark for Fixture {
        fn name(&self) -> &str {
            self.0
        }
        fn suites(&self) -> Vec<String> {
            self.1.iter().map(|s| s.to_string()).collect()
        }
        fn suite(&self, _name: &str) -> Result<Vec<TaskSpec>, String> {
            Ok(Vec::new())
        }
        fn task(&self, _id: &str) -> Option<TaskSpec> {
            None
        }
    }

    static ALPHA: Fixture = Fixture("alpha", &["smoke", "all"]);
    static BETA: Fixture = Fixture("beta", &["smoke", "extra"]);

    fn resolved(name: &str) -> Result<(String, String), String> {
        let catalogue = Catalogue::new(vec![&ALPHA, &BETA], |b| if b == "alpha" { vec!["sim".into()] } else { Vec::new() });
        catalogue.resolve_suite(name).map(|(b, s)| (b.name().to_string(), s.to_string()))
    }

    #[test]
    fn suites_are_named_by_benchmark_or_alone_where_that_is_unambiguous() {
        assert_eq!(resolved("alpha:smoke"), Ok(("alpha".into(), "smoke".into())));
        assert_eq!(resolved("beta:smoke"), Ok(("beta".into(), "smoke".into())));
        assert_eq!(resolved("extra"), Ok(("beta".into(), "extra".into())));
        let ambiguous = resolved("smoke").unwrap_err();
        assert!(ambiguous.contains("alpha:smoke") && ambiguous.contains("beta:smoke"), "{ambiguous}");
        let unknown = resolved("nope").unwrap_err();
        assert!(unknown.contains("alpha:all") && unknown.contains("beta:extra"), "{unknown}");
        let wrong_benchmark = resolved("gamma:smoke").unwrap_err();
        assert!(wrong_benchmark.contains("alpha, beta"), "{wrong_benchmark}");
        let wrong_suite = resolved("alpha:extra").unwrap_err();
        assert!(wrong_suite.contains("alpha:all"), "{wrong_suite}");
    }

    #[test]
    fn a_catalogue_says_which_backends_host_a_benchmark() {
        let catalogue = Catalogue::new(vec![&ALPHA, &BETA], |b| if b == "alpha" { vec!["sim".into()] } else { Vec::new() });
        assert_eq!(catalogue.hosts("alpha"), ["sim".to_string()]);
        assert!(catalogue.hosts("beta").is_empty() && catalogue.hosts("gamma").is_empty());
    }
}
