//! The resource name (plural) of a Kind, as kubebuilder derives it: the lower-case kind run
//! through the English inflection rules of its `flect` library, so that a project moved between
//! kubebuilder and kubeforge keeps its resource names.
//!
//! The rules, in order:
//! 1. a word of the dictionary ([`WORDS`]) takes its plural from there (`person` → `people`,
//!    `index` → `indices`, `mouse` → `mice`, `alias` → `aliases`); a word that is already the
//!    plural of a dictionary word stays as it is (`people`, `data`);
//! 2. otherwise the first suffix rule that matches decides: the dictionary words as suffixes
//!    of compound words, last entry first (`chairperson` → `chairpeople`), then [`SUFFIXES`]
//!    in order (`policy` → `policies`, `status` → `statuses`, `datum` → `data`); a word ending
//!    in the plural side of a rule is already plural and stays (`data`, `leaves`);
//! 3. otherwise a word ending in `s` stays (`things`, `endpoints`) and any other gets `s`.
//!
//! A kind spelled as one of flect's acronyms (`DNS`, `API`) is treated as an ordinary word
//! here (flect splices such words oddly, giving names that are no DNS label); pass `--plural`
//! to choose another name.

/// One dictionary word: its plural, and whether only the word itself (not a compound ending in
/// it) follows this entry.
struct Word {
    singular: &'static str,
    plural: &'static str,
    /// Another accepted plural, which stays as it is when given as a kind.
    alternative: &'static str,
    /// Only the word itself (`ox` → `oxen`, but `box` → `boxes`).
    exact: bool,
    /// The plural is not read back as this word (`basis`/`bases` is `base`'s).
    one_way: bool,
}

const fn w(singular: &'static str, plural: &'static str) -> Word {
    Word {
        singular,
        plural,
        alternative: "",
        exact: false,
        one_way: false,
    }
}

const fn alt(singular: &'static str, plural: &'static str, alternative: &'static str) -> Word {
    Word {
        singular,
        plural,
        alternative,
        exact: false,
        one_way: false,
    }
}

const fn exact(singular: &'static str, plural: &'static str) -> Word {
    Word {
        singular,
        plural,
        alternative: "",
        exact: true,
        one_way: false,
    }
}

const fn one_way(singular: &'static str, plural: &'static str, alternative: &'static str) -> Word {
    Word {
        singular,
        plural,
        alternative,
        exact: false,
        one_way: true,
    }
}

/// English words with irregular plurals (flect 1.0's dictionary, in its order: the order
/// matters for compound words, where later entries win).
const WORDS: &[Word] = &[
    w("aircraft", "aircraft"),
    alt("beef", "beef", "beefs"),
    w("bison", "bison"),
    one_way("blues", "blues", ""),
    w("chassis", "chassis"),
    w("deer", "deer"),
    alt("fish", "fish", "fishes"),
    w("moose", "moose"),
    w("police", "police"),
    alt("salmon", "salmon", "salmons"),
    w("series", "series"),
    w("sheep", "sheep"),
    alt("shrimp", "shrimp", "shrimps"),
    w("species", "species"),
    alt("swine", "swine", "swines"),
    alt("trout", "trout", "trouts"),
    alt("tuna", "tuna", "tunas"),
    w("you", "you"),
    w("child", "children"),
    exact("ox", "oxen"),
    w("foot", "feet"),
    w("goose", "geese"),
    w("man", "men"),
    w("human", "humans"),
    exact("louse", "lice"),
    w("mouse", "mice"),
    w("tooth", "teeth"),
    w("woman", "women"),
    exact("die", "dice"),
    w("person", "people"),
    alt("adieu", "adieux", "adieus"),
    w("fabliau", "fabliaux"),
    alt("bureau", "bureaus", "bureaux"),
    w("criterion", "criteria"),
    alt("ganglion", "ganglia", "ganglions"),
    alt("lexicon", "lexica", "lexicons"),
    alt("mitochondrion", "mitochondria", "mitochondrions"),
    w("noumenon", "noumena"),
    w("phenomenon", "phenomena"),
    w("taxon", "taxa"),
    w("media", "media"),
    one_way("medium", "media", "mediums"),
    alt("stadium", "stadiums", "stadia"),
    alt("aquarium", "aquaria", "aquariums"),
    alt("auditorium", "auditoria", "auditoriums"),
    alt("symposium", "symposia", "symposiums"),
    alt("curriculum", "curriculums", "curricula"),
    w("quota", "quotas"),
    alt("alumnus", "alumni", "alumnuses"),
    w("bacillus", "bacilli"),
    alt("cactus", "cacti", "cactuses"),
    w("coccus", "cocci"),
    alt("focus", "foci", "focuses"),
    alt("locus", "loci", "locuses"),
    alt("nucleus", "nuclei", "nucleuses"),
    alt("octopus", "octupuses", "octopi"),
    alt("radius", "radii", "radiuses"),
    w("syllabus", "syllabi"),
    alt("corpus", "corpora", "corpuses"),
    w("genus", "genera"),
    w("alumna", "alumnae"),
    w("vertebra", "vertebrae"),
    w("differentia", "differentiae"),
    w("minutia", "minutiae"),
    w("vita", "vitae"),
    w("larva", "larvae"),
    w("postcava", "postcavae"),
    w("praecava", "praecavae"),
    w("uva", "uvae"),
    alt("apex", "apices", "apexes"),
    alt("codex", "codices", "codexes"),
    alt("index", "indices", "indexes"),
    alt("latex", "latices", "latexes"),
    alt("vertex", "vertices", "vertexes"),
    alt("vortex", "vortices", "vortexes"),
    alt("appendix", "appendices", "appendixes"),
    alt("radix", "radices", "radixes"),
    alt("helix", "helices", "helixes"),
    exact("axis", "axes"),
    w("crisis", "crises"),
    one_way("ellipsis", "ellipses", ""),
    w("genesis", "geneses"),
    w("oasis", "oases"),
    w("thesis", "theses"),
    w("testis", "testes"),
    w("base", "bases"),
    one_way("basis", "bases", ""),
    exact("alias", "aliases"),
    w("vedalia", "vedalias"),
    exact("use", "uses"),
    w("abuse", "abuses"),
    w("cause", "causes"),
    w("clause", "clauses"),
    w("cruse", "cruses"),
    w("excuse", "excuses"),
    w("fuse", "fuses"),
    w("house", "houses"),
    w("misuse", "misuses"),
    w("muse", "muses"),
    w("pause", "pauses"),
    w("ache", "aches"),
    w("topaz", "topazes"),
    alt("buffalo", "buffaloes", "buffalos"),
    w("potato", "potatoes"),
    w("tomato", "tomatoes"),
    w("equipment", "equipment"),
    w("information", "information"),
    w("jeans", "jeans"),
    w("money", "money"),
    w("news", "news"),
    w("rice", "rice"),
    alt("dwarf", "dwarfs", "dwarves"),
    alt("hoof", "hoofs", "hooves"),
    w("thief", "thieves"),
    w("chive", "chives"),
    w("hive", "hives"),
    w("move", "moves"),
    w("movie", "movies"),
    w("cookie", "cookies"),
    w("pretorium", "pretoriums"),
    w("agenda", "agendas"),
    alt("formula", "formulas", "formulae"),
    w("shoe", "shoes"),
    exact("toe", "toes"),
    w("graffiti", "graffiti"),
];

/// Suffix rules (singular ending → plural ending), first match wins.
const SUFFIXES: &[(&str, &str)] = &[
    ("tive", "tives"),
    ("eaf", "eaves"),
    ("oaf", "oaves"),
    ("afe", "aves"),
    ("arf", "arves"),
    ("rfe", "rves"),
    ("rf", "rves"),
    ("lf", "lves"),
    ("fe", "ves"),
    ("ay", "ays"),
    ("ey", "eys"),
    ("oy", "oys"),
    ("quy", "quies"),
    ("uy", "uys"),
    ("y", "ies"),
    ("eau", "eaux"),
    ("bula", "bulae"),
    ("dula", "bulae"),
    ("lula", "bulae"),
    ("nula", "bulae"),
    ("vula", "bulae"),
    ("hedron", "hedra"),
    ("ium", "ia"),
    ("seum", "seums"),
    ("eum", "ea"),
    ("oum", "oa"),
    ("stracum", "straca"),
    ("dum", "da"),
    ("elum", "ela"),
    ("ilum", "ila"),
    ("olum", "ola"),
    ("ulum", "ula"),
    ("llum", "lla"),
    ("ylum", "yla"),
    ("imum", "ima"),
    ("ernum", "erna"),
    ("gnum", "gna"),
    ("brum", "bra"),
    ("crum", "cra"),
    ("terum", "tera"),
    ("serum", "sera"),
    ("trum", "tra"),
    ("antum", "anta"),
    ("atum", "ata"),
    ("entum", "enta"),
    ("etum", "eta"),
    ("itum", "ita"),
    ("otum", "ota"),
    ("utum", "uta"),
    ("ctum", "cta"),
    ("ovum", "ova"),
    ("trix", "trices"),
    ("iasis", "iases"),
    ("mesis", "meses"),
    ("kinesis", "kineses"),
    ("resis", "reses"),
    ("gnosis", "gnoses"),
    ("opsis", "opses"),
    ("ysis", "yses"),
    ("ouse", "ouses"),
    ("lause", "lauses"),
    ("us", "uses"),
    ("ch", "ches"),
    ("io", "ios"),
    ("sh", "shes"),
    ("ss", "sses"),
    ("ez", "ezzes"),
    ("iz", "izzes"),
    ("tz", "tzes"),
    ("zz", "zzes"),
    ("ano", "anos"),
    ("lo", "los"),
    ("to", "tos"),
    ("oo", "oos"),
    ("o", "oes"),
    ("x", "xes"),
];

/// What a matching rule does to a word.
enum Rule {
    /// Replace the suffix (singular side) with the plural side.
    Replace(&'static str, &'static str),
    /// The word already ends in a plural: leave it.
    Keep(&'static str),
}

/// Every rule in the order they are tried: each dictionary word (not `exact`) as a suffix,
/// last first, then the suffix rules; each contributes "ends in the plural: keep" before
/// "ends in the singular: replace".
fn rules() -> impl Iterator<Item = Rule> {
    let words = WORDS
        .iter()
        .rev()
        .filter(|word| !word.exact)
        .map(|word| (word.singular, word.plural));
    words
        .chain(SUFFIXES.iter().copied())
        .flat_map(|(singular, plural)| [Rule::Keep(plural), Rule::Replace(singular, plural)])
}

/// The resource name kubebuilder derives from `kind`: `Memcached` → `memcacheds`, `Policy` →
/// `policies`, `Status` → `statuses`, `Index` → `indices`, `Person` → `people`, `Things` →
/// `things`, `Data` → `data`.
pub fn plural(kind: &str) -> String {
    let word = kind.to_ascii_lowercase();
    if word.is_empty() {
        return word;
    }
    if let Some(entry) = WORDS.iter().find(|entry| entry.singular == word) {
        return entry.plural.to_owned();
    }
    let known_plural = WORDS
        .iter()
        .any(|entry| !entry.one_way && (entry.plural == word || entry.alternative == word));
    if known_plural {
        return word;
    }
    for rule in rules() {
        match rule {
            Rule::Keep(plural) if word.ends_with(plural) => return word,
            Rule::Replace(singular, plural) if word.ends_with(singular) => {
                return format!("{}{plural}", &word[..word.len() - singular.len()]);
            }
            _ => {}
        }
    }
    if word.ends_with('s') {
        word
    } else {
        format!("{word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::plural;

    /// flect 1.0.3's `Pluralize(strings.ToLower(kind))`, what kubebuilder writes into a CRD,
    /// for kinds operators use and for the irregular and already-plural words.
    #[test]
    fn matches_flect() {
        for (kind, expected) in [
            ("Memcached", "memcacheds"),
            ("CronJob", "cronjobs"),
            ("Guestbook", "guestbooks"),
            ("Policy", "policies"),
            ("Proxy", "proxies"),
            ("Gateway", "gateways"),
            ("Key", "keys"),
            ("Status", "statuses"),
            ("Bus", "buses"),
            ("Alias", "aliases"),
            ("Index", "indices"),
            ("Indexes", "indexes"),
            ("Indices", "indices"),
            ("Matrix", "matrices"),
            ("Vertex", "vertices"),
            ("Person", "people"),
            ("People", "people"),
            ("Mouse", "mice"),
            ("House", "houses"),
            ("Child", "children"),
            ("Man", "men"),
            ("Human", "humans"),
            ("Ox", "oxen"),
            ("Box", "boxes"),
            ("Things", "things"),
            ("Data", "data"),
            ("Datum", "data"),
            ("Media", "media"),
            ("Medium", "media"),
            ("Endpoints", "endpoints"),
            ("Ingress", "ingresses"),
            ("Class", "classes"),
            ("Match", "matches"),
            ("Mesh", "meshes"),
            ("Quiz", "quizzes"),
            ("Photo", "photos"),
            ("Potato", "potatoes"),
            ("Hero", "heroes"),
            ("Radio", "radios"),
            ("Leaf", "leaves"),
            ("Knife", "knives"),
            ("Wolf", "wolves"),
            ("Hive", "hives"),
            ("Directive", "directives"),
            ("Criterion", "criteria"),
            ("Analysis", "analyses"),
            ("Basis", "bases"),
            ("Axis", "axes"),
            ("Crisis", "crises"),
            ("Sheep", "sheep"),
            ("Series", "series"),
            ("Species", "species"),
            ("News", "news"),
            ("Equipment", "equipment"),
            ("Cactus", "cacti"),
            ("Virus", "viruses"),
            ("Campus", "campuses"),
            ("Bureau", "bureaus"),
            ("Plateau", "plateaux"),
            ("Stadium", "stadiums"),
            ("Aquarium", "aquaria"),
            ("Database", "databases"),
            ("Cache", "caches"),
            ("Use", "uses"),
            ("Fuse", "fuses"),
            ("Movie", "movies"),
            ("Quota", "quotas"),
            ("ResourceQuota", "resourcequotas"),
            ("Foot", "feet"),
            ("Tooth", "teeth"),
            ("Goose", "geese"),
            ("Fish", "fish"),
            ("Chassis", "chassis"),
            ("Die", "dice"),
            ("Toe", "toes"),
            ("Shoe", "shoes"),
            ("Thing2", "thing2s"),
            ("V1", "v1s"),
            ("Chairperson", "chairpeople"),
            ("Spaceman", "spacemen"),
        ] {
            assert_eq!(plural(kind), expected, "{kind}");
        }
    }
}
