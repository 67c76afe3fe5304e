#include "cli/shell_and_man.h"

#include <algorithm>

namespace pathscope::cli {

namespace {

/// The verbs users see (a hidden one has no group).
std::vector<const CLI::App*> visible_verbs(const CLI::App& app) {
    return app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
}

std::string option_words(const CLI::App& verb) {
    std::string words;
    for (const CLI::Option* o : verb.get_options())
        for (const auto& l : o->get_lnames()) words += (words.empty() ? "--" : " --") + l;
    return words;
}

std::string verb_words(const CLI::App& app) {
    std::string words;
    for (const CLI::App* v : visible_verbs(app)) words += (words.empty() ? "" : " ") + v->get_name();
    return words;
}

}  // namespace

std::string bash_completion(const CLI::App& app) {
    std::string cases, nested;
    for (const CLI::App* v : visible_verbs(app)) {
        const std::string subs = verb_words(*v);
        if (!subs.empty()) nested += "        " + v->get_name() + ") subs=\"" + subs + "\" ;;\n";
        cases += "        " + v->get_name() + ") opts=\"" + option_words(*v) + "\" ;;\n";
        for (const CLI::App* s : visible_verbs(*v))
            cases += "        \"" + v->get_name() + " " + s->get_name() + "\") opts=\"" +
                     option_words(*s) + "\" ;;\n";
    }
    return "# bash completion for pathscope, made by `pathscope completion bash` from the\n"
           "# command line's own definition. Install: pathscope completion bash >\n"
           "# /usr/share/bash-completion/completions/pathscope (the package does), or\n"
           "# source <(pathscope completion bash) in ~/.bashrc.\n"
           "_pathscope() {\n"
           "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
           "    local verb= sub= subs= opts= i\n"
           "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
           "        case ${COMP_WORDS[i]} in -*) continue ;; esac\n"
           "        if [[ -z $verb ]]; then verb=${COMP_WORDS[i]}; else sub=${COMP_WORDS[i]}; break; fi\n"
           "    done\n"
           "    if [[ -z $verb ]]; then\n"
           "        COMPREPLY=($(compgen -W \"" + verb_words(app) + " --help --version\" -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    case $verb in\n" + nested +
           "    esac\n"
           "    if [[ -n $subs && -z $sub && $cur != -* ]]; then\n"
           "        COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    case ${sub:+$verb $sub}${sub:-$verb} in\n" + cases +
           "    esac\n"
           "    if [[ $cur == -* ]]; then\n"
           "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    COMPREPLY=($(compgen -f -- \"$cur\"))  # scenarios, stores, captures, plugins\n"
           "}\n"
           "complete -o filenames -o bashdefault -F _pathscope pathscope\n";
}

namespace {

/// Text for roff: backslashes and hyphens escaped, and a line that starts
/// with a control character ('.' or '\'') kept as text.
std::string roff(const std::string& text) {
    std::string out;
    bool line_start = true;
    for (const char c : text) {
        if (line_start && (c == '.' || c == '\'')) out += "\\&";
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
        line_start = c == '\n';
    }
    return out;
}

std::string options_section(const CLI::App& verb) {
    std::string out;
    for (const CLI::Option* o : verb.get_options()) {
        std::string names;
        if (o->get_positional()) {
            names = "\\fI" + roff(o->get_name(true)) + "\\fR";
        } else {
            for (const auto& s : o->get_snames()) names += (names.empty() ? "" : ", ") + std::string("\\fB\\-") + s + "\\fR";
            for (const auto& l : o->get_lnames()) names += (names.empty() ? "" : ", ") + std::string("\\fB\\-\\-") + roff(l) + "\\fR";
            if (o->get_type_size() != 0) names += " \\fI" + roff(o->get_type_name()) + "\\fR";
        }
        out += ".TP\n" + names + "\n" + roff(o->get_description()) + "\n";
    }
    return out;
}

std::string page(const std::string& name, const std::string& summary, const std::string& usage,
                 const std::string& description, const std::string& options,
                 const std::string& see_also, const std::string& version) {
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    return ".\\\" Made by pathscope from its command line's definition; do not edit.\n"
           ".TH " + upper + " 1 \"\" \"pathscope " + version + "\" \"pathscope manual\"\n"
           ".SH NAME\n" + roff(name) + " \\- " + roff(summary) + "\n"
           ".SH SYNOPSIS\n.nf\n" + roff(usage) + "\n.fi\n"
           ".SH DESCRIPTION\n.nf\n" + roff(description) + "\n.fi\n" +
           (options.empty() ? "" : ".SH OPTIONS\n" + options) +
           ".SH SEE ALSO\n" + see_also + "\n";
}

std::string usage(const std::string& command, const CLI::App& verb) {
    std::string u = command;
    const bool has_subs = !visible_verbs(verb).empty();
    if (has_subs) u += " VERB";
    if (!verb.get_options([](const CLI::Option* o) { return !o->get_positional(); }).empty())
        u += " [OPTIONS]";
    for (const CLI::Option* o : verb.get_options([](const CLI::Option* o) { return o->get_positional(); }))
        u += " [" + o->get_name(true) + "]";
    return u;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> man_pages(const CLI::App& app,
                                                           const std::string& version) {
    std::vector<std::pair<std::string, std::string>> pages;
    std::string verbs, see_also = ".BR pathscope (1)";
    for (const CLI::App* v : visible_verbs(app)) {
        verbs += ".TP\n\\fB" + roff(v->get_name()) + "\\fR\n" + roff(v->get_description()) + "\n";
        see_also += ",\n.BR pathscope\\-" + roff(v->get_name()) + " (1)";
    }
    see_also += ",\n.BR pathscope\\-gui (1)";
    pages.emplace_back("pathscope.1",
                       page("pathscope", "an interactive packet-path profiler", "pathscope VERB [OPTIONS]",
                            app.get_description() + "\n\n" + app.get_footer(), ".TP\n\\fB\\-\\-version\\fR\nthe version\n" + verbs,
                            see_also, version));
    for (const CLI::App* v : visible_verbs(app)) {
        std::string description = v->get_footer(), options = options_section(*v);
        for (const CLI::App* s : visible_verbs(*v)) {
            description += "\n\n" + usage("pathscope " + v->get_name() + " " + s->get_name(), *s) +
                           ": " + s->get_description() + "\n" + s->get_footer();
            options += ".SS " + roff(v->get_name() + " " + s->get_name()) + "\n" + options_section(*s);
        }
        pages.emplace_back("pathscope-" + v->get_name() + ".1",
                           page("pathscope-" + v->get_name(), v->get_description(),
                                usage("pathscope " + v->get_name(), *v), description, options,
                                ".BR pathscope (1)", version));
    }
    return pages;
}

}  // namespace pathscope::cli
