//! Rendering templates with strict handlebars.

use handlebars::Handlebars;
use serde::Serialize;

use crate::catalog::TEMPLATES;

/// Why a template could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A template does not parse (a bug in this crate, caught by its tests).
    #[error("template `{name}` does not parse: {source}")]
    Parse {
        /// The template name.
        name: &'static str,
        /// The handlebars error.
        #[source]
        source: Box<handlebars::TemplateError>,
    },
    /// A replacement template (see [`Renderer::with_overrides`]) does not parse.
    #[error("template `{name}` given to replace the embedded one does not parse: {source}")]
    Override {
        /// The template name.
        name: String,
        /// The handlebars error.
        #[source]
        source: Box<handlebars::TemplateError>,
    },
    /// Rendering failed, e.g. the template names a value the caller did not supply.
    #[error("template `{name}` could not be rendered: {source}")]
    Render {
        /// The template name.
        name: String,
        /// The handlebars error.
        #[source]
        source: Box<handlebars::RenderError>,
    },
}

/// Renders the embedded templates. Cheap to build (all templates are parsed once).
pub struct Renderer {
    registry: Handlebars<'static>,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("templates", &TEMPLATES.len())
            .finish()
    }
}

impl Renderer {
    /// Parses every embedded template in strict mode, with HTML escaping off (we write code,
    /// not HTML).
    pub fn new() -> Result<Self, Error> {
        let mut registry = Handlebars::new();
        registry.set_strict_mode(true);
        registry.register_escape_fn(handlebars::no_escape);
        for template in TEMPLATES {
            registry
                .register_template_string(template.name, template.source)
                .map_err(|source| Error::Parse {
                    name: template.name,
                    source: Box::new(source),
                })?;
        }
        Ok(Self { registry })
    }

    /// The embedded templates with some replaced: `(name, source)` pairs, for rendering with the
    /// templates of another kubeforge version (`kubeforge alpha update`). Names no embedded
    /// template has are registered too, unused.
    pub fn with_overrides<'a>(
        overrides: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, Error> {
        let mut renderer = Self::new()?;
        for (name, source) in overrides {
            renderer
                .registry
                .register_template_string(name, source)
                .map_err(|source| Error::Override {
                    name: name.to_owned(),
                    source: Box::new(source),
                })?;
        }
        Ok(renderer)
    }

    /// Renders the template `name` with `data`.
    pub fn render(&self, name: &str, data: &impl Serialize) -> Result<String, Error> {
        self.registry
            .render(name, data)
            .map_err(|source| Error::Render {
                name: name.to_owned(),
                source: Box::new(source),
            })
    }

    /// Whether a template of that name is embedded.
    pub fn has(&self, name: &str) -> bool {
        self.registry.has_template(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_parses() {
        let renderer = Renderer::new().expect("templates parse");
        for template in TEMPLATES {
            assert!(renderer.has(template.name), "{}", template.name);
        }
    }

    #[test]
    fn overrides_replace_embedded_templates() {
        let renderer =
            Renderer::with_overrides([("project/gitignore", "old {{project_name}}\n")]).unwrap();
        let text = renderer
            .render(
                "project/gitignore",
                &serde_json::json!({"project_name": "demo"}),
            )
            .unwrap();
        assert_eq!(text, "old demo\n");
        let err = Renderer::with_overrides([("project/gitignore", "{{#if}")]).unwrap_err();
        assert!(matches!(err, Error::Override { .. }), "{err}");
    }

    #[test]
    fn strict_mode_rejects_missing_values() {
        let renderer = Renderer::new().unwrap();
        let err = renderer
            .render("project/src/lib.rs", &serde_json::json!({}))
            .unwrap_err();
        assert!(matches!(err, Error::Render { .. }), "{err}");
    }
}
