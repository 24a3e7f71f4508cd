//! Desktop tasks in OSWorld's format: an instruction, set-up steps (`config`), and an
//! evaluator (metric functions over values that getters fetch from the instance, against
//! expected values). The same structure holds our own catalogue's tasks and imported ones.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One value or a list of them (OSWorld writes both). A list is tried first: a JSON value
/// would take a list too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    Many(Vec<T>),
    One(T),
}

impl<T: Clone> OneOrMany<T> {
    pub fn to_vec(&self) -> Vec<T> {
        match self {
            OneOrMany::One(t) => vec![t.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// A set-up step: `{"type": "launch", "parameters": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigStep {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub parameters: Value,
}

impl ConfigStep {
    pub fn new(kind: &str, parameters: Value) -> ConfigStep {
        ConfigStep { kind: kind.into(), parameters }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluator {
    pub func: OneOrMany<String>,
    /// How several metrics combine: `and` (the default) or `or`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conj: Option<String>,
    /// Getters, one per metric: `{"type": "vm_file", "path": ..., "dest": ...}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<OneOrMany<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<OneOrMany<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<OneOrMany<Value>>,
    /// Steps run before the getters (save a document, close an application).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub postconfig: Vec<ConfigStep>,
}

/// A task file in OSWorld's format. Fields we do not use (`snapshot`, `source`, `trajectory`,
/// `proxy`…) are kept, so a file reads back as it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OsWorldTask {
    pub id: String,
    pub instruction: String,
    #[serde(default)]
    pub config: Vec<ConfigStep>,
    #[serde(default)]
    pub related_apps: Vec<String>,
    pub evaluator: Evaluator,
    /// Our extension, absent from OSWorld's files: the only changes to the user's files the
    /// task allows (paths under `/home/user`, `*` within a name, `folder/**` for all under
    /// it). Where it is given, any other file created, deleted or changed since the reset
    /// fails the task (a solution that also wrecks another file is wrong); where it is not,
    /// the verdict is OSWorld's alone.
    #[serde(default, rename = "guigym_allowed_changes", skip_serializing_if = "Option::is_none")]
    pub allowed_changes: Option<Vec<String>>,
    #[serde(flatten)]
    pub other: serde_json::Map<String, Value>,
}

/// One metric with its getters, as the evaluator lists them.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    pub func: String,
    pub result: Option<Value>,
    pub expected: Option<Value>,
    pub options: Value,
}

impl OsWorldTask {
    /// Reads a task file; the error names what is wrong and where.
    pub fn parse(text: &str) -> Result<OsWorldTask, String> {
        let task: OsWorldTask = serde_json::from_str(text).map_err(|e| e.to_string())?;
        task.check()?;
        Ok(task)
    }

    /// What reading cannot tell: the evaluator's lists agree, allowed changes lie in the home.
    pub fn check(&self) -> Result<(), String> {
        self.metrics()?;
        for (i, path) in self.allowed_changes.iter().flatten().enumerate() {
            if crate::runner::home_relative(path).is_none() {
                return Err(format!("guigym_allowed_changes[{i}]: {path:?} is not a path under /home/user"));
            }
        }
        Ok(())
    }

    pub fn is_infeasible(&self) -> bool {
        self.evaluator.func.to_vec().iter().any(|f| f == "infeasible")
    }

    /// The evaluator's metrics, each with its getters and options; lists must agree in length.
    pub fn metrics(&self) -> Result<Vec<Metric>, String> {
        let e = &self.evaluator;
        let funcs = e.func.to_vec();
        if funcs.is_empty() {
            return Err("evaluator.func: no metric named".into());
        }
        let many = matches!(e.func, OneOrMany::Many(_));
        let part = |field: &str, v: &Option<OneOrMany<Value>>| -> Result<Vec<Option<Value>>, String> {
            match (v, many) {
                (None, _) => Ok(vec![None; funcs.len()]),
                // As OSWorld reads a list: an empty entry (null, {}) is no getter.
                (Some(OneOrMany::Many(list)), true) if list.len() == funcs.len() => {
                    Ok(list.iter().map(|v| (!v.is_null() && v.as_object().is_none_or(|o| !o.is_empty())).then(|| v.clone())).collect())
                }
                (Some(OneOrMany::Many(list)), true) => Err(format!("evaluator.{field}: {} entries for {} metrics", list.len(), funcs.len())),
                // One metric: its value is the whole field (a list stays a list).
                (Some(OneOrMany::Many(list)), false) => Ok(vec![Some(Value::Array(list.clone()))]),
                (Some(OneOrMany::One(v)), false) => Ok(vec![Some(v.clone())]),
                (Some(OneOrMany::One(v)), true) => Ok(vec![Some(v.clone()); funcs.len()]),
            }
        };
        let (results, expected, options) = (part("result", &e.result)?, part("expected", &e.expected)?, part("options", &e.options)?);
        if let Some(c) = e.conj.as_deref().filter(|c| !matches!(*c, "and" | "or")) {
            return Err(format!("evaluator.conj: \"{c}\" is neither \"and\" nor \"or\""));
        }
        Ok(funcs
            .into_iter()
            .enumerate()
            .map(|(i, func)| Metric {
                func,
                result: results[i].clone(),
                expected: expected[i].clone(),
                options: options[i].clone().unwrap_or(Value::Object(Default::default())),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_and_many_metrics_read_as_lists() {
        let one = OsWorldTask::parse(
            r#"{"id": "a", "instruction": "x", "config": [{"type": "sleep", "parameters": {"seconds": 1}}],
                "evaluator": {"func": "exact_match", "result": {"type": "vm_command_line", "command": "ls"}, "expected": {"type": "rule", "rules": {"expected": "x"}}},
                "snapshot": "os", "source": "here"}"#,
        )
        .unwrap();
        let m = one.metrics().unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].result.as_ref().unwrap()["type"], "vm_command_line");
        assert_eq!(one.other["snapshot"], "os");
        let many = OsWorldTask::parse(
            r#"{"id": "b", "instruction": "y", "evaluator": {"func": ["exact_match", "check_include_exclude"], "conj": "or",
                "result": [{"type": "vm_command_line", "command": "a"}, {"type": "vm_command_line", "command": "b"}],
                "expected": [{"type": "rule", "rules": {"expected": "1"}}, {"type": "rule", "rules": {"include": ["2"]}}]}}"#,
        )
        .unwrap();
        assert_eq!(many.metrics().unwrap()[1].result.as_ref().unwrap()["command"], "b");
        let bad = OsWorldTask::parse(r#"{"id": "c", "instruction": "z", "evaluator": {"func": ["exact_match", "exact_match"], "result": [{"type": "rule"}]}}"#);
        assert!(bad.unwrap_err().contains("evaluator.result: 1 entries for 2 metrics"));
        assert!(OsWorldTask::parse(r#"{"id": "d", "instruction": "z", "evaluator": {"func": "infeasible"}}"#).unwrap().is_infeasible());
        // Our extension reads back as written, and must name paths in the home.
        let text = r#"{"id": "e", "instruction": "z", "evaluator": {"func": "infeasible"}, "guigym_allowed_changes": ["/home/user/a.txt", "~/b/**"]}"#;
        let task = OsWorldTask::parse(text).unwrap();
        assert_eq!(task.allowed_changes.as_deref(), Some(&["/home/user/a.txt".to_string(), "~/b/**".to_string()][..]));
        assert!(serde_json::to_string(&task).unwrap().contains("\"guigym_allowed_changes\":[\"/home/user/a.txt\""));
        assert!(task.other.is_empty());
        let outside = OsWorldTask::parse(r#"{"id": "f", "instruction": "z", "evaluator": {"func": "infeasible"}, "guigym_allowed_changes": ["/etc/passwd"]}"#);
        assert_eq!(outside.unwrap_err(), "guigym_allowed_changes[0]: \"/etc/passwd\" is not a path under /home/user");
    }
}
