// `accumlab-cli content-check`: checks the embedded teaching content (every text in every
// language, the same placeholders, no English prose or Latin digits in right-to-left text);
// exit 0 when clean, 1 with one line per problem (translators run it).
#include "app/cli/commands/commands.h"
#include "app/cli/commands/common.h"

#include "core/content/content.h"

#include <CLI/CLI.hpp>

#include <iostream>

namespace accumlab::cli {
namespace {

class ContentCheck : public Command {
public:
    CLI::App *declare(CLI::App &app) override
    {
        return app.add_subcommand("content-check", "check the embedded teaching content in every language");
    }

    int run(const Invocation &) override
    {
        const auto problems = validateContent(embeddedContent());
        for (const auto &p : problems)
            std::cout << p << "\n";
        std::cout << (problems.empty() ? "content: every text is complete in every language\n"
                                       : "content: " + std::to_string(problems.size()) + " problems\n");
        return problems.empty() ? 0 : 1;
    }
};

} // namespace

std::unique_ptr<Command> contentCheckCommand() { return std::make_unique<ContentCheck>(); }

} // namespace accumlab::cli
