// Checkpoints: the engine's state (core/engine_state.h) as one safetensors file per rank (the
// manifest in its header's __metadata__, the tensors named as PyTorch names them), published
// generation by generation through latest.json. Format 2 (one manifest line, raw bytes) is
// still read.
#include "core/io/checkpoint.h"

#include "core/device.h"
#include "core/distributed/distributed.h"
#include "core/distributed/fault_hooks.h"
#include "core/engine.h"
#include "core/engine_state.h"
#include "core/io/export.h"
#include "core/io/json_reader.h"
#include "core/model.h"
#include "core/memory/memory.h"
#include "core/io/regular_file.h"
#include "core/io/safetensors.h"
#include "core/io/sha256.h"

#include <ATen/CPUGeneratorImpl.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include <fcntl.h>

namespace accumlab {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

constexpr const char *kLatest = "latest.json";
// Generations are named by the micro-batches done, zero-padded so that names sort by age.
constexpr int kGenerationDigits = 12;

std::string generationName(int64_t microBatches)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "gen-%0*lld", kGenerationDigits, static_cast<long long>(microBatches));
    return buf;
}

// Format 3's rank files are safetensors files; format 2's were .ckpt.
std::string rankFileName(int64_t rank, int version = kCheckpointVersion)
{
    return "rank-" + std::to_string(rank) + (version >= 3 ? ".safetensors" : ".ckpt");
}

[[noreturn]] void refuse(const std::string &code, const fs::path &file, TextArgs args = {})
{
    args.strings["file"] = file.string();
    throw CheckpointError("checkpoint/" + code, std::move(args));
}

// The tensor dtypes a checkpoint holds, by the names the manifest writes.
const std::map<std::string, torch::Dtype> &dtypeNames()
{
    static const std::map<std::string, torch::Dtype> names = {
        {"float32", torch::kFloat32}, {"float64", torch::kFloat64}, {"bfloat16", torch::kBFloat16},
        {"int64", torch::kInt64},     {"uint8", torch::kUInt8}};
    return names;
}

// The same dtypes by safetensors' names (format 3).
const std::map<std::string, torch::Dtype> &safetensorsDtypes()
{
    static const std::map<std::string, torch::Dtype> names = {
        {"F32", torch::kFloat32}, {"F64", torch::kFloat64}, {"BF16", torch::kBFloat16},
        {"I64", torch::kInt64},   {"U8", torch::kUInt8}};
    return names;
}

std::string safetensorsDtype(torch::Dtype t)
{
    for (const auto &[name, dtype] : safetensorsDtypes())
        if (dtype == t)
            return name;
    TORCH_CHECK(false, "a checkpoint cannot hold a tensor of ", t);
}

// A format-3 header's tensor table, as a checksum covers it: name -> dtype, shape, offsets, in
// name order (the manifest's tensors_sha256 is of its dump).
std::string tensorTable(const json &header)
{
    nlohmann::json table = nlohmann::json::object(); // sorted by name
    for (auto it = header.begin(); it != header.end(); ++it)
        if (it.key() != "__metadata__")
            table[it.key()] = it.value();
    return table.dump();
}

// A figure of the run as JSON: a number, or "inf", "-inf" or "nan" (JSON has no such numbers,
// and a window skipped for an overflow leaves an infinite gradient norm to carry over).
json figureJson(double v)
{
    if (std::isfinite(v))
        return v;
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

std::string widths(const ModelShape &s)
{
    return std::to_string(s.inFeatures) + "-" + std::to_string(s.hidden) + "-" + std::to_string(s.classes);
}

// A tensor's shape and dtype as Python writes them, for a refusal: "(2048,) Float".
std::string sizes(const torch::Tensor &t)
{
    std::string out = "(";
    for (int64_t i = 0; i < t.dim(); ++i)
        out += (i ? ", " : "") + std::to_string(t.size(i));
    return out + (t.dim() == 1 ? ",)" : ")") + " " + std::string(c10::toString(t.scalar_type()));
}

// The largest files a checkpoint has: latest.json is a few lines. A rank file's safetensors
// header (the manifest with the run's settings, and the tensor table) is about 2 KB; its
// bound is what the header's length may announce, checked before the header is read.
constexpr uint64_t kMaxLatestBytes = 64 * 1024;
constexpr uint64_t kMaxRankHeaderBytes = 64 * 1024;

// The most a rank file of run `c` can hold: every tensor this run may write, in its dtype at
// its widest, plus the header's bound. Per parameter: the weights, the gradient buffers, the
// window's starting weights (the step-every-micro bug) and the optimizer's state (momentum: one
// buffer, AdamW: two); then the open window's inputs and noise (rows x in), its class ids
// (int64) and losses, and the data stream's generator (torch's mt19937 state, 5,056 bytes). A
// file larger than this is refused before it is read (the lesson's files are 114-331 KB; a 3 GB
// one was read whole before it was called corrupt).
uint64_t rankFileBound(const AccumConfig &c)
{
    const ModelShape shape = c.modelShape();
    const uint64_t params = uint64_t(parameterCount(shape));
    const uint64_t element = c.dtype == DType::Float64 ? 8 : 4; // bfloat16 and float16 runs keep float32 at most
    const uint64_t optimizerBuffers = c.optimizer.kind == OptimizerKind::AdamW ? 2 : c.optimizer.kind == OptimizerKind::Momentum ? 1 : 0;
    const uint64_t rows = uint64_t(c.microBatch) * uint64_t(c.accumSteps);
    const uint64_t window = rows * uint64_t(shape.inFeatures) * 8 * 2 + rows * 8 + uint64_t(c.accumSteps) * 8;
    constexpr uint64_t kGeneratorSlack = 8 * 1024;
    return 8 + kMaxRankHeaderBytes + params * element * (3 + optimizerBuffers) + window + kGeneratorSlack;
}

// How deep a checkpoint's JSON may nest: a manifest nests four levels (tensors, one tensor, its
// shape). A value nested 100,000 deep once overflowed the stack when a refusal printed it; the
// one JSON reader refuses it while parsing.
constexpr int kMaxJsonDepth = 8;

// A checkpoint file's bytes through the one reader (core/io/regular_file.h): a FIFO (whose read
// waits for ever), /dev/zero (an endless read), a folder or a huge sparse file is refused
// before anything is read.
std::string readCheckpointFile(const fs::path &file, uint64_t maxBytes)
{
    FileBytes f = readRegularFile(file, maxBytes);
    switch (f.refusal) {
    case ReadRefusal::None: break;
    case ReadRefusal::System: refuse("unreadable", file, TextArgs{{}, {{"reason", std::strerror(f.error)}}});
    case ReadRefusal::NotRegular: refuse("not-a-file", file);
    case ReadRefusal::TooLarge:
        refuse("too-large", file, TextArgs{{{"bytes", double(f.size)}, {"limit", double(maxBytes)}}, {}});
    }
    return std::move(f.bytes);
}

// A manifest or latest.json through the one JSON reader (core/io/json_reader.h): text that is
// not JSON, or nested deeper than a checkpoint nests, is no checkpoint.
json parseManifest(std::string_view text, const fs::path &file)
{
    try {
        return parseJson<json>(text, kMaxJsonDepth); // ordered: the seal covers the manifest as written
    } catch (const JsonRefusal &) {
        refuse("not-a-checkpoint", file);
    }
}

// A rank file's safetensors header the same way: its text (at most kMaxRankHeaderBytes, the
// caller checked) through the one JSON reader, nested at most as deep as a checkpoint nests.
json parseRankHeader(std::string_view text, const fs::path &file)
{
    try {
        return parseJson<json>(text, kMaxJsonDepth);
    } catch (const JsonRefusal &) {
        refuse("not-a-checkpoint", file);
    }
}

// The format version of a manifest or latest.json, checked into an int: 2^63 once read as
// "format version 0". Quoted digit for digit when refused.
int checkedVersion(const json &v, const fs::path &file)
{
    int version = 0;
    if (jsonNumberInto(v, version) != NumberFault::None || version < kOldestCheckpointVersion ||
        version > kCheckpointVersion) {
        TextArgs args{{{"oldest", double(kOldestCheckpointVersion)}, {"supported", double(kCheckpointVersion)}}, {}};
        args.strings["found"] = jsonExcerpt(v);
        refuse("version", file, std::move(args));
    }
    return version;
}

// One rank file being assembled: named tensors in the order added, written as safetensors
// with the manifest in its metadata.
struct FileWriter {
    std::vector<torch::Tensor> held; // contiguous CPU copies the entries point into
    std::vector<SafetensorsEntry> entries;
    std::string payload;             // the data section, for its checksum

    void add(const std::string &name, const torch::Tensor &t)
    {
        if (!t.defined())
            return;
        held.push_back(t.to(torch::kCPU).contiguous());
        const torch::Tensor &c = held.back();
        entries.push_back({name, safetensorsDtype(c.scalar_type()), c.sizes().vec(), c.data_ptr(), c.nbytes()});
        payload.append(static_cast<const char *>(c.data_ptr()), c.nbytes());
    }
    // A flat buffer (total,) as one tensor per parameter: `prefix` + "fc1.weight", shaped.
    void addPerParameter(const std::string &prefix, const torch::Tensor &flat, const EngineState &s)
    {
        if (!flat.defined())
            return;
        int64_t offset = 0;
        for (size_t i = 0; i < s.paramNames.size(); ++i) {
            int64_t n = 1;
            for (int64_t d : s.paramShapes[i])
                n *= d;
            add(prefix + s.paramNames[i], flat.narrow(/*dim=*/0, offset, n).view(s.paramShapes[i]));
            offset += n;
        }
    }

    std::string file(json manifest) const
    {
        const std::string bytes = safetensorsFile(entries, {});
        const json header = json::parse(safetensorsHeader(bytes));
        const std::string table = tensorTable(header);
        manifest["payload_bytes"] = payload.size();
        manifest["payload_sha256"] = sha256Hex(payload.data(), payload.size());
        manifest["tensors_sha256"] = sha256Hex(table.data(), table.size());
        const std::string unsealed = manifest.dump();
        manifest["manifest_sha256"] = sha256Hex(unsealed.data(), unsealed.size());
        return safetensorsFile(entries, {{"format", kCheckpointFormat},
                                         {"version", std::to_string(kCheckpointVersion)},
                                         {"manifest", manifest.dump()}});
    }
};

// One rank file read back and checked: its manifest and its tensors by name.
struct FileReader {
    fs::path path;
    json manifest;
    std::map<std::string, torch::Tensor> tensors;

    int version = kCheckpointVersion;

    // One tensor as the file announces it, before anything is allocated.
    struct Entry {
        std::string name;
        torch::Dtype dtype;
        std::vector<int64_t> shape;
        uint64_t offset = 0, bytes = 0;
    };

    // `maxBytes`: the most a rank file of the run it is read for can hold (rankFileBound).
    FileReader(fs::path p, uint64_t maxBytes) : path(std::move(p))
    {
        const std::string all = readCheckpointFile(path, maxBytes);
        std::vector<Entry> entries;
        size_t dataStart = 0;
        try {
            // Format 2 opens with its manifest line; format 3 with safetensors' header length, a
            // multiple of 8 (the header is padded), so its first byte is never '{' (0x7B).
            dataStart = !all.empty() && all[0] == '{' ? readFormat2(all, entries) : readFormat3(all, entries);
        } catch (const json::exception &) {
            refuse("not-a-checkpoint", path);
        } catch (const std::out_of_range &) { // an unknown dtype name
            refuse("not-a-checkpoint", path);
        }
        const uint64_t found = all.size() - dataStart;
        const char *payload = all.data() + dataStart;
        const auto expected = number<uint64_t>(manifest, "payload_bytes");
        if (found < expected)
            refuse("truncated", path, TextArgs{{{"found", double(found)}, {"expected", double(expected)}}, {}});
        if (found != expected || sha256Hex(payload, found) != number<std::string>(manifest, "payload_sha256"))
            refuse("corrupt", path);
        for (const Entry &t : entries) {
            // The announced size must be what the shape takes, and inside the data, before
            // anything is allocated.
            uint64_t expect = c10::elementSize(t.dtype);
            for (int64_t d : t.shape) {
                if (d < 0 || (d > 0 && expect > found / uint64_t(d)))
                    refuse("corrupt", path);
                expect *= uint64_t(d);
            }
            if (expect != t.bytes || t.offset > found || t.bytes > found - t.offset)
                refuse("corrupt", path);
            auto tensor = torch::empty(t.shape, torch::dtype(t.dtype));
            std::memcpy(tensor.data_ptr(), payload + t.offset, t.bytes);
            if (!tensors.emplace(t.name, tensor).second)
                refuse("corrupt", path); // a tensor named twice
        }
    }

    // The manifest's format and version, then its own checksum (of the manifest as written
    // without it) before any other field is used: one edited character is refused here, not
    // trusted below.
    void checkManifest()
    {
        if (!manifest.is_object() || manifest.value("format", "") != kCheckpointFormat ||
            !manifest.contains("version") || !manifest["version"].is_number_integer())
            refuse("not-a-checkpoint", path);
        version = checkedVersion(manifest["version"], path);
        json unsealed = manifest;
        const json seal = unsealed.contains("manifest_sha256") ? unsealed["manifest_sha256"] : json();
        unsealed.erase("manifest_sha256");
        const std::string text = unsealed.dump();
        if (!seal.is_string() || seal.get<std::string>() != sha256Hex(text.data(), text.size()))
            refuse("manifest-corrupt", path);
    }

    // Format 2: one line of JSON (the manifest, its tensors with their offsets), then the data.
    size_t readFormat2(const std::string &all, std::vector<Entry> &entries)
    {
        const size_t eol = all.find('\n');
        if (eol == std::string::npos)
            refuse("not-a-checkpoint", path);
        manifest = parseManifest(std::string_view(all.data(), eol), path);
        checkManifest();
        if (version != 2)
            refuse("not-a-checkpoint", path);
        for (const auto &t : manifest.at("tensors"))
            entries.push_back({t.at("name").get<std::string>(), dtypeNames().at(t.at("dtype").get<std::string>()),
                               t.at("shape").get<std::vector<int64_t>>(), t.at("offset").get<uint64_t>(),
                               t.at("bytes").get<uint64_t>()});
        return eol + 1;
    }

    // Format 3: a safetensors file. The header's __metadata__ holds the manifest, which seals the
    // header's tensor table (tensors_sha256) and the data (payload_sha256).
    size_t readFormat3(const std::string &all, std::vector<Entry> &entries)
    {
        uint64_t length = 0;
        if (all.size() < sizeof length)
            refuse("not-a-checkpoint", path);
        std::memcpy(&length, all.data(), sizeof length); // little-endian, as safetensors writes it
        if (length > kMaxRankHeaderBytes)
            refuse("header-too-large", path, TextArgs{{{"bytes", double(length)}, {"limit", double(kMaxRankHeaderBytes)}}, {}});
        if (length > all.size() - sizeof length)
            refuse("not-a-checkpoint", path);
        const std::string_view headerText(all.data() + sizeof length, length);
        const json header = parseRankHeader(headerText, path);
        if (!header.is_object() || !header.contains("__metadata__") || !header["__metadata__"].is_object())
            refuse("not-a-checkpoint", path);
        const json &meta = header["__metadata__"];
        if (meta.value("format", "") != kCheckpointFormat || !meta.contains("manifest") || !meta["manifest"].is_string())
            refuse("not-a-checkpoint", path);
        manifest = parseManifest(meta["manifest"].get_ref<const std::string &>(), path);
        checkManifest();
        if (version != 3 || meta.value("version", "") != std::to_string(version))
            refuse("not-a-checkpoint", path);
        const std::string table = tensorTable(header);
        if (sha256Hex(table.data(), table.size()) != number<std::string>(manifest, "tensors_sha256"))
            refuse("corrupt", path);
        for (auto it = header.begin(); it != header.end(); ++it) {
            if (it.key() == "__metadata__")
                continue;
            const auto range = it.value().at("data_offsets").get<std::vector<uint64_t>>();
            if (range.size() != 2 || range[1] < range[0])
                refuse("tensor-layout", path, TextArgs{{}, {{"field", it.key()}, {"detail", it.value().at("data_offsets").dump()}}});
            entries.push_back({it.key(), safetensorsDtypes().at(it.value().at("dtype").get<std::string>()),
                               it.value().at("shape").get<std::vector<int64_t>>(), range[0], range[1] - range[0]});
        }
        // As the format says (and safetensors' own reader checks): the tensors' byte ranges, in
        // order, start at 0, each where the one before ends (no overlap, no hole), and the last
        // ends where the file does. Two tensors sharing bytes are refused, not read twice.
        std::vector<const Entry *> byOffset;
        for (const Entry &e : entries)
            byOffset.push_back(&e);
        std::stable_sort(byOffset.begin(), byOffset.end(),
                         [](const Entry *a, const Entry *b) { return std::pair(a->offset, a->bytes) < std::pair(b->offset, b->bytes); });
        uint64_t end = 0;
        for (const Entry *e : byOffset) {
            if (e->offset != end)
                refuse("tensor-layout", path,
                       TextArgs{{}, {{"field", e->name},
                                     {"detail", "[" + std::to_string(e->offset) + ", " + std::to_string(e->offset + e->bytes) +
                                                    "] " + (e->offset < end ? "overlaps" : "leaves a hole after") +
                                                    " the tensor before it, which ends at " + std::to_string(end)}}});
            end = e->offset + e->bytes;
        }
        const uint64_t data = all.size() - sizeof length - length;
        if (end < data) // bytes after the last tensor (fewer are a truncated file, refused as one)
            refuse("tensor-layout", path,
                   TextArgs{{}, {{"field", byOffset.empty() ? std::string("__metadata__") : byOffset.back()->name},
                                 {"detail", "the tensors end at byte " + std::to_string(end) + " of a data section of " +
                                                std::to_string(data)}}});
        return sizeof length + length;
    }

    torch::Tensor tensor(const std::string &name, bool required = true) const
    {
        const auto it = tensors.find(name);
        if (it == tensors.end()) {
            if (required)
                refuse("not-a-checkpoint", path);
            return {};
        }
        return it->second;
    }

    // A figure written by figureJson.
    double figure(const json &object, const char *key) const
    {
        const json &v = object.contains(key) ? object.at(key) : json();
        if (v.is_number())
            return v.get<double>();
        if (v == "inf")
            return std::numeric_limits<double>::infinity();
        if (v == "-inf")
            return -std::numeric_limits<double>::infinity();
        if (v == "nan")
            return std::numeric_limits<double>::quiet_NaN();
        refuse("not-a-checkpoint", path);
    }

    // A field of the manifest checked into its C++ type (core/io/json_reader.h): missing or of
    // another type is no checkpoint; a fraction (micro_batches 6.5, once truncated to 6) or a
    // number past the type's range is refused with the field's name.
    template <class T>
    T number(const json &object, const char *key) const
    {
        const auto it = object.is_object() ? object.find(key) : object.end();
        if (it == object.end())
            refuse("not-a-checkpoint", path);
        T out{};
        switch (jsonNumberInto(*it, out)) {
        case NumberFault::None: return out;
        case NumberFault::WrongType: refuse("not-a-checkpoint", path);
        case NumberFault::NotWhole:
            refuse("out-of-range", path, TextArgs{{}, {{"field", key}, {"detail", jsonExcerpt(*it) + ", not a whole number"}}});
        case NumberFault::OutOfRange:
            refuse("out-of-range", path, TextArgs{{}, {{"field", key}, {"detail", jsonExcerpt(*it) + ", out of range"}}});
        }
        refuse("not-a-checkpoint", path);
    }

    // Refuses a file of another run: model widths, dtype, world size, then each setting.
    void requireRun(const AccumConfig &c) const
    {
        try {
            const ModelShape run = c.modelShape();
            const json &model = manifest.at("model");
            const ModelShape saved{number<int64_t>(model, "in_features"), number<int64_t>(model, "hidden"),
                                   number<int64_t>(model, "classes")};
            if (saved.inFeatures != run.inFeatures || saved.hidden != run.hidden || saved.classes != run.classes)
                throw CheckpointError("checkpoint/shape-differs", TextArgs{{}, {{"saved", widths(saved)}, {"run", widths(run)}}});
            const auto dtype = manifest.at("dtype").get<std::string>();
            if (dtype != toString(c.dtype))
                throw CheckpointError("checkpoint/dtype-differs", TextArgs{{}, {{"saved", dtype}, {"run", toString(c.dtype)}}});
            const auto world = number<int64_t>(manifest, "world_size");
            if (world != c.worldSize)
                throw CheckpointError("checkpoint/world-size-differs",
                                      TextArgs{{{"saved", double(world)}, {"run", double(c.worldSize)}}, {}});
            const json &saved_ = manifest.at("config");
            // Every setting (core/io/export.h's toJson(AccumConfig)), in the order written: the
            // first difference is named. The widths, dtype and world size were compared above.
            const nlohmann::ordered_json mine = toJson(c);
            for (auto it = mine.begin(); it != mine.end(); ++it) {
                const json theirs = saved_.contains(it.key()) ? saved_.at(it.key()) : json();
                const json value = json::parse(it.value().dump());
                if (theirs != value) {
                    // A nested value is named by its kind, not printed; a string is quoted (a
                    // string "0.05" once read as the number 0.05: "lr is 0.05; this run's is
                    // 0.05"), and by a short excerpt (a 5 MB string was echoed whole).
                    // Names on both sides stay bare ("sgd"; "momentum").
                    const bool names = theirs.is_string() && value.is_string();
                    auto text = [names](const json &v) {
                        return v.is_object()         ? std::string("an object")
                               : v.is_array()        ? std::string("an array")
                               : names               ? textExcerpt(v.get<std::string>())
                                                     : jsonExcerpt(v);
                    };
                    throw CheckpointError("checkpoint/config-differs",
                                          TextArgs{{}, {{"key", it.key()}, {"saved", text(theirs)}, {"run", text(value)}}});
                }
            }
            // A scaler's state in a run without one (the settings' loss_scaling says which).
            const json &scaler = manifest.contains("loss_scaler") ? manifest.at("loss_scaler") : json();
            if (!scaler.is_null() && !c.lossScaler.enabled)
                throw CheckpointError("checkpoint/unsupported-section", TextArgs{{}, {{"section", "loss_scaler"}}});
        } catch (const json::exception &) {
            refuse("not-a-checkpoint", path);
        }
    }
};

json readLatest(const fs::path &dir)
{
    const fs::path file = dir / kLatest;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(file, ec)))
        throw CheckpointError("checkpoint/none", TextArgs{{}, {{"dir", dir.string()}}});
    const std::string text = readCheckpointFile(file, kMaxLatestBytes);
    const json latest = parseManifest(text, file);
    if (!latest.is_object() || !latest.contains("format") || latest["format"] != kCheckpointFormat ||
        !latest.contains("version") ||
        !latest["version"].is_number_integer() || !latest.contains("generation") || !latest["generation"].is_string() ||
        !latest.contains("world_size") || !latest["world_size"].is_number_integer())
        refuse("not-a-checkpoint", file);
    checkedVersion(latest["version"], file);
    int64_t world = 0;
    if (jsonNumberInto(latest["world_size"], world) != NumberFault::None)
        refuse("not-a-checkpoint", file);
    const std::string gen = latest["generation"].get<std::string>();
    if (gen.find('/') != std::string::npos || gen.find("..") != std::string::npos)
        refuse("not-a-checkpoint", file);
    // The generation is read only inside `dir`, as it is written (a gen-... link planted there is
    // refused on resume with the sentence and exit code of a refused write, never read through).
    struct stat st {};
    const fs::path genDir = dir / gen;
    if (::lstat(genDir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
        throw CheckpointError("checkpoint/resume-link", TextArgs{{}, {{"dir", dir.string()}, {"file", genDir.string()}}});
    return latest;
}

// A generation folder this program made holds this marker (written by the rank that made the
// folder, before its rank file): pruning and a failed publish remove only folders that hold
// it, and in them only the files a checkpoint writes. A user's gen-* folder, or a link named
// like one, is never deleted.
constexpr const char *kGenerationMarker = ".accumlab-generation";

// A file name a checkpoint writes into its generation: rank-<r>.safetensors (or format 2's
// .ckpt), and the writer's temporaries beside it (.tmp-XXXXXX, .old-<pid>-<n>).
bool writtenByACheckpoint(const std::string &name)
{
    size_t i = 5;
    if (name.rfind("rank-", 0) != 0 || name.size() <= i || !std::isdigit(static_cast<unsigned char>(name[i])))
        return false;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])))
        ++i;
    std::string_view rest(name);
    rest.remove_prefix(i);
    for (const std::string_view ext : {".safetensors", ".ckpt"})
        if (rest.substr(0, ext.size()) == ext) {
            const std::string_view tail = rest.substr(ext.size());
            return tail.empty() || tail.substr(0, 5) == ".tmp-" || tail.substr(0, 5) == ".old-";
        }
    return false;
}

// Removes the generation `name` in the folder `dirFd`, if it is a folder this program made
// (its marker says so): the files a checkpoint writes, then the marker, then the folder if
// nothing else is left in it. A link, a file, or a folder without the marker is left alone,
// except that an empty folder (one a killed rank made and wrote nothing into) goes. Best
// effort: a leftover costs space, never correctness.
void removeGeneration(int dirFd, const std::string &name)
{
    const int gen = ::openat(dirFd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (gen < 0)
        return; // gone, a link, or not a folder: not ours to remove
    struct stat st {};
    if (::fstatat(gen, kGenerationMarker, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
        if (DIR *list = ::fdopendir(::dup(gen))) {
            std::vector<std::string> ours;
            while (const dirent *e = ::readdir(list))
                if (writtenByACheckpoint(e->d_name) && ::fstatat(gen, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    S_ISREG(st.st_mode))
                    ours.emplace_back(e->d_name);
            ::closedir(list);
            for (const std::string &file : ours)
                ::unlinkat(gen, file.c_str(), 0);
            ::unlinkat(gen, kGenerationMarker, 0);
        }
    }
    ::close(gen);
    ::unlinkat(dirFd, name.c_str(), AT_REMOVEDIR); // only when empty: a user's file keeps it
}

void pruneOlderGenerations(const fs::path &dir, const std::string &current)
{
    const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd < 0)
        return;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        // Only older generations: a rank may already be writing a newer one.
        if (name.rfind("gen-", 0) == 0 && name.size() == current.size() && name < current)
            removeGeneration(dirFd, name);
    }
    ::close(dirFd);
}

// After a failed publish: the generation `gen` goes (as removeGeneration removes one) unless
// the latest.json in `dir` names it.
void removeOwnGeneration(const fs::path &dir, const std::string &gen)
{
    try {
        if (readLatest(dir)["generation"].get<std::string>() == gen)
            return;
    } catch (const std::exception &) { // no latest.json, or an unreadable one: it names nothing
    }
    const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd < 0)
        return;
    removeGeneration(dirFd, gen);
    ::close(dirFd);
}

// Every restored field against the run it goes into, before the engine sees any of it: the
// checksums prove a file is the one written, not that it belongs to this run, nor that whoever
// wrote it (or recomputed its checksums) wrote sense. `mine` is the engine's state layout
// (AccumEngine::stateLayout): the shapes and dtypes of its tensors, no data.
void checkState(const EngineState &s, const std::optional<LossScalerState> &scaler, const EngineState &mine,
                const AccumConfig &c, const fs::path &sharedPath, const fs::path &ownPath)
{
    auto bad = [](const fs::path &file, const std::string &field, const std::string &detail) {
        refuse("out-of-range", file, TextArgs{{}, {{"field", field}, {"detail", detail}}});
    };
    // A tensor of exactly the engine's own shape and dtype.
    auto sameAs = [&](const torch::Tensor &t, const torch::Tensor &want, const fs::path &file, const char *name) {
        if (!t.defined() || t.sizes() != want.sizes() || t.scalar_type() != want.scalar_type())
            bad(file, name, (t.defined() ? sizes(t) : std::string("missing")) + ", this run needs " + sizes(want));
    };
    sameAs(s.params, mine.params, sharedPath, "params");
    sameAs(s.grads, mine.grads, ownPath, "grads");
    sameAs(s.generator, mine.generator, sharedPath, "data.generator");
    // Its bytes are a Mersenne Twister's state only when LibTorch takes them: an edited one
    // once printed LibTorch's "Invalid mt19937 state" and a C++ stack trace, naming no file.
    try {
        torch::Generator probe = at::make_generator<at::CPUGeneratorImpl>();
        probe.set_state(s.generator);
    } catch (const c10::Error &) {
        bad(sharedPath, "data.generator", "not a state of the data stream's random generator");
    }
    // The optimizer's state, where it has any (none before its first step), is per parameter.
    for (const auto &[t, name] : {std::pair{&s.momentum, "optimizer.momentum"}, std::pair{&s.expAvg, "optimizer.exp_avg"},
                                  std::pair{&s.expAvgSq, "optimizer.exp_avg_sq"}})
        if (t->defined() && (t->dim() != 1 || t->numel() != mine.params.numel() || t->scalar_type() != mine.params.scalar_type()))
            bad(sharedPath, name, sizes(*t) + ", this run needs " + sizes(mine.params));
    if (s.windowStartParams.defined())
        sameAs(s.windowStartParams, mine.params, ownPath, "window.start_params");

    auto count = [&](int64_t v, int64_t lo, int64_t hi, const fs::path &file, const char *name) {
        if (v < lo || v > hi)
            bad(file, name, std::to_string(v) + ", outside " + std::to_string(lo) + ".." + std::to_string(hi));
    };
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    count(s.microBatches, 0, kMax, sharedPath, "micro_batches");
    count(s.windowsDone, 0, s.microBatches, sharedPath, "windows_done");
    count(s.optimizerSteps, 0, s.microBatches, sharedPath, "optimizer_steps");
    count(s.optimizerStateStep, 0, s.microBatches, sharedPath, "optimizer_state_step");
    count(s.schedulerSteps, 0, s.microBatches, sharedPath, "scheduler_steps");
    // One gradient sync per micro-batch at most (no_sync() skips some): 2^63 - 1 once ran on
    // and printed a negative count.
    count(s.syncCalls, 0, s.microBatches, sharedPath, "sync_calls");
    if (!std::isfinite(s.lastLr) || s.lastLr < 0)
        bad(sharedPath, "last_lr", std::to_string(s.lastLr));
    // The counters agree: every closed window ran accum_steps micro-batches, the open one `micro`.
    const int64_t micro = s.open ? s.micro : 0;
    count(micro, 0, s.open ? c.accumSteps - 1 : 0, ownPath, "micro_index");
    if (s.windowsDone > (kMax - micro) / c.accumSteps || s.windowsDone * c.accumSteps + micro != s.microBatches)
        bad(sharedPath, "micro_batches",
            std::to_string(s.microBatches) + " micro-batches for " + std::to_string(s.windowsDone) + " windows of " +
                std::to_string(c.accumSteps) + " and " + std::to_string(micro) + " in the open one");
    if (s.open) {
        const int64_t rows = c.microBatch * c.accumSteps;
        const ModelShape shape = c.modelShape();
        const auto x = torch::empty({rows, shape.inFeatures}, torch::kFloat32);
        sameAs(s.windowX, x, ownPath, "window.x");
        sameAs(s.windowY, torch::empty({rows}, torch::kInt64), ownPath, "window.y");
        if (s.windowY.min().item<int64_t>() < 0 || s.windowY.max().item<int64_t>() >= shape.classes)
            bad(ownPath, "window.y", "class ids outside 0.." + std::to_string(shape.classes - 1));
        if (!s.windowLosses.defined() || s.windowLosses.dim() != 1 || s.windowLosses.size(0) != micro ||
            !s.windowLosses.is_floating_point())
            bad(ownPath, "window.losses",
                (s.windowLosses.defined() ? sizes(s.windowLosses) : std::string("missing")) + " for " +
                    std::to_string(micro) + " micro-batches");
    }
    if (scaler) {
        const LossScalerState &l = *scaler;
        // unscale_() ran and update() did not: only inside a window (the unscale-every-micro
        // pitfall). At a window's end update() has run; a closed window claiming otherwise was
        // accepted, then reported as a training divergence.
        if (l.unscaledSinceUpdate && !s.open)
            bad(sharedPath, "loss_scaler.unscaled_since_update", "true at a window's end, where update() has run");
        if (!std::isfinite(l.scale) || l.scale <= 0)
            bad(sharedPath, "loss_scaler.scale", std::to_string(l.scale));
        count(l.growthTracker, 0, c.lossScaler.growthInterval - 1, sharedPath, "loss_scaler.growth_tracker");
        count(l.skippedWindows, 0, s.windowsDone, sharedPath, "loss_scaler.skipped_windows");
        count(l.unscaleCalls, 0, s.microBatches, sharedPath, "loss_scaler.unscale_calls");
        count(l.growths, 0, s.microBatches, sharedPath, "loss_scaler.growths");
        count(l.backoffs, 0, s.microBatches, sharedPath, "loss_scaler.backoffs");
    }
}

} // namespace

namespace {

// A checkpoint that could not be written, said truthfully: the earlier one is left whole when
// there is one (its latest.json is only replaced after every rank's file is in place).
CheckpointError writeFailed(const fs::path &dir, const std::string &reason)
{
    std::error_code ec;
    const bool earlier = fs::is_regular_file(dir / kLatest, ec);
    return CheckpointError(earlier ? "checkpoint/write-failed" : "checkpoint/write-failed-first",
                           TextArgs{{}, {{"dir", dir.string()}, {"reason", reason}}});
}

// The run a rank file says it belongs to, from its header alone (read through the one reader,
// at most the header's bound): what a window asks before it has an engine, so that the file's
// size is bounded by what that run can write before the file is read whole. Unchecked here
// (the manifest's checksums are checked when the whole file is read); a header that names no
// run this build accepts is refused.
AccumConfig declaredRun(const fs::path &file)
{
    FileBytes f = readRegularFilePrefix(file, sizeof(uint64_t) + kMaxRankHeaderBytes);
    if (f.refusal == ReadRefusal::System)
        refuse("unreadable", file, TextArgs{{}, {{"reason", std::strerror(f.error)}}});
    if (f.refusal == ReadRefusal::NotRegular)
        refuse("not-a-file", file);
    const std::string &all = f.bytes;
    try {
        std::string manifestText;
        if (!all.empty() && all[0] == '{') { // format 2: the manifest's line
            const size_t eol = all.find('\n');
            if (eol == std::string::npos)
                refuse("not-a-checkpoint", file);
            manifestText = all.substr(0, eol);
        } else {
            uint64_t length = 0;
            if (all.size() < sizeof length)
                refuse("not-a-checkpoint", file);
            std::memcpy(&length, all.data(), sizeof length);
            if (length > kMaxRankHeaderBytes)
                refuse("header-too-large", file, TextArgs{{{"bytes", double(length)}, {"limit", double(kMaxRankHeaderBytes)}}, {}});
            if (length > all.size() - sizeof length)
                refuse("not-a-checkpoint", file);
            const std::string_view headerText(all.data() + sizeof length, length);
            const json header = parseRankHeader(headerText, file);
            manifestText = header.at("__metadata__").at("manifest").get<std::string>();
        }
        const json m = parseManifest(manifestText, file);
        AccumConfig c = accumConfigFromJson(nlohmann::json::parse(m.at("config").dump()));
        c.worldSize = m.at("world_size").get<int64_t>();
        c.dtype = dtypeFromString(m.at("dtype").get<std::string>());
        validate(c);
        return c;
    } catch (const json::exception &) {
        refuse("not-a-checkpoint", file);
    } catch (const ConfigError &) {
        refuse("not-a-checkpoint", file);
    }
}

} // namespace

CheckpointFolderLock &CheckpointFolderLock::operator=(CheckpointFolderLock &&o) noexcept
{
    if (this != &o) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = o.m_fd;
        o.m_fd = -1;
    }
    return *this;
}

CheckpointFolderLock::~CheckpointFolderLock()
{
    if (m_fd >= 0)
        ::close(m_fd); // the flock goes with the descriptor
}

CheckpointFolderLock prepareCheckpointFolder(const fs::path &dir, bool lock)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw writeFailed(dir, ec.message());
    try {
        // Staged beside latest.json and dropped uncommitted: the folder takes a file, and
        // latest.json, if there, is a file the one writer may replace.
        StagedFile probe(dir / kLatest, "");
    } catch (const ExportError &e) {
        throw writeFailed(dir, e.reason().empty() ? e.what() : e.reason());
    }
    // A link named like a generation would be written through (N3 of issue 60): refused here,
    // before the run trains, as the writer refuses it when the generation is written.
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("gen-", 0) == 0 && entry.is_symlink(ec))
            throw CheckpointError("checkpoint/write-failed-link", TextArgs{{}, {{"dir", dir.string()}, {"file", entry.path().string()}}});
    }
    if (!lock)
        return {};
    // A file of its own: the folder's descriptor is what each publish locks for its renames.
    const fs::path file = dir / ".accumlab-writer.lock";
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
    if (fd < 0 && errno == ELOOP) // said as what it is, not "Too many levels of symbolic links"
        throw CheckpointError("checkpoint/lock-is-link", TextArgs{{}, {{"dir", dir.string()}, {"file", file.string()}}});
    if (fd < 0)
        throw writeFailed(dir, std::strerror(errno));
    CheckpointFolderLock held(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        throw writeFailed(dir, "its lock file is not a regular file");
    // Tried once: a second run on this folder is refused at once, not waited for. A file
    // system without locks leaves the folder unguarded, as before.
    if (lockExclusive(fd, {}) == FileLock::Busy)
        throw CheckpointError("checkpoint/folder-in-use", TextArgs{{}, {{"dir", dir.string()}}});
    return held;
}

bool hasCheckpoint(const fs::path &dir)
{
    std::error_code ec;
    return fs::is_regular_file(dir / kLatest, ec);
}

fs::path latestRankFile(const fs::path &dir, int64_t rank)
{
    const json latest = readLatest(dir);
    return dir / latest["generation"].get<std::string>() / rankFileName(rank, latest["version"].get<int>());
}

void saveCheckpoint(AccumEngine &engine, const fs::path &dir)
{
    EngineState s;
    engine.captureState(s);
    const AccumConfig &c = engine.config();
    const int64_t rank = engine.rank();
    const std::string gen = generationName(s.microBatches);
    const ModelShape shape = c.modelShape();

    json manifest = {{"format", kCheckpointFormat},
                     {"version", kCheckpointVersion},
                     {"rank", rank},
                     {"world_size", c.worldSize},
                     {"model", {{"in_features", shape.inFeatures}, {"hidden", shape.hidden}, {"classes", shape.classes}}},
                     {"dtype", toString(c.dtype)},
                     {"config", json::parse(toJson(c).dump())},
                     {"micro_batches", s.microBatches},
                     {"window", {{"open", s.open}, {"micro_index", s.micro}}}};
    FileWriter w;
    if (rank == 0) {
        manifest["shared"] = {{"optimizer_state_step", s.optimizerStateStep},
                              {"scheduler_steps", s.schedulerSteps},
                              {"last_lr", s.lastLr},
                              {"optimizer_steps", s.optimizerSteps},
                              {"windows_done", s.windowsDone},
                              {"sync_calls", s.syncCalls},
                              {"last_loss", figureJson(s.lastLoss)},
                              {"last_grad_norm", figureJson(s.lastGradNorm)}};
        // The loss scaler's state (one for all ranks: an Inf reaches every rank through the
        // all-reduce, so all skip and back off alike); null when the run has none.
        if (c.lossScaler.enabled) {
            const LossScalerState ls = engine.lossScalerState();
            manifest["loss_scaler"] = {{"scale", ls.scale},
                                       {"growth_tracker", ls.growthTracker},
                                       {"skipped_windows", ls.skippedWindows},
                                       {"unscale_calls", ls.unscaleCalls},
                                       {"growths", ls.growths},
                                       {"backoffs", ls.backoffs},
                                       {"unscaled_since_update", ls.unscaledSinceUpdate}};
        } else {
            manifest["loss_scaler"] = nullptr;
        }
        // As PyTorch names them: the model's state_dict, then the optimizer's per-parameter
        // state under torch.optim's own names (momentum_buffer; exp_avg, exp_avg_sq).
        w.addPerParameter("", s.params, s);
        w.addPerParameter("optimizer.momentum_buffer.", s.momentum, s);
        w.addPerParameter("optimizer.exp_avg.", s.expAvg, s);
        w.addPerParameter("optimizer.exp_avg_sq.", s.expAvgSq, s);
        w.add("data.generator", s.generator); // torch.Generator's get_state()
    }
    // The gradient buffers only where they carry into the next micro-batch: inside a window (the
    // partial sums), or with the never-zero bug, whose next window adds onto them. A closed
    // window's finished sum is no state (the next window zeroes it) and is not saved.
    if (s.open || c.bug == AccumBug::NeverZero)
        w.addPerParameter("grad.", s.grads, s);
    w.add("window.x", s.windowInputs);      // the inputs the model sees, (rows, in)
    w.add("window.y", s.windowY);           // their class ids, (rows,)
    w.add("window.noise", s.windowX);       // what the stream drew (float32): x = noise + P[y] with the teacher
    w.add("window.losses", s.windowLosses); // the raw losses of the micro-batches that ran
    w.addPerParameter("window.start.", s.windowStartParams, s); // step-every-micro: the window's start

    auto failed = [&](const ExportError &e) {
        if (e.code() == "export/path-leaves-folder")
            return CheckpointError("checkpoint/write-failed-link", TextArgs{{}, {{"dir", dir.string()}, {"file", (dir / gen).string()}}});
        return writeFailed(dir, e.reason().empty() ? e.what() : e.reason());
    };
    // The generation's folder, made inside `dir` and never through a link (a gen-... link
    // planted there is refused, not followed: core/io/export.h's openFolderInside). The rank
    // that makes it marks it as this program's, so that only it is ever removed.
    bool created = false;
    try {
        const int genFd = openFolderInside(dir, gen, &created);
        if (created) {
            const int marker = ::openat(genFd, kGenerationMarker, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (marker >= 0)
                ::close(marker);
        }
        ::close(genFd);
        writeFileAtomic(dir, fs::path(gen) / rankFileName(rank), w.file(manifest));
    } catch (const ExportError &e) {
        // A failed write (a full disk) removes the generation, its own marker saying it is one.
        removeOwnGeneration(dir, gen);
        throw failed(e);
    }
    faultKillAtMicro(s.microBatches, "mid-checkpoint");
    engine.rendezvous(); // every rank's file is in place
    if (rank != 0)
        return;
    const json latest = {{"format", kCheckpointFormat},
                         {"version", kCheckpointVersion},
                         {"generation", gen},
                         {"world_size", c.worldSize},
                         {"micro_batches", s.microBatches}};
    try {
        writeFileAtomic(dir / kLatest, latest.dump(2) + "\n");
    } catch (const ExportError &e) {
        // Not published: the generation is an orphan no latest.json names (unless the earlier
        // latest.json names this very one, saved twice at one micro-batch: then it stays).
        removeOwnGeneration(dir, gen);
        throw failed(e);
    }
    pruneOlderGenerations(dir, gen);
}

AccumConfig checkpointConfig(const fs::path &dir)
{
    const json latest = readLatest(dir);
    const fs::path file = dir / latest["generation"].get<std::string>() / rankFileName(0, latest["version"].get<int>());
    const FileReader shared(file, rankFileBound(declaredRun(file)));
    const json &m = shared.manifest;
    try {
        // The run's record (toJson(AccumConfig)) read back by its one reader, every setting
        // present (none is guessed); the world size and dtype as the manifest states them.
        const nlohmann::json saved = nlohmann::json::parse(m.at("config").dump());
        const nlohmann::ordered_json every = toJson(AccumConfig{});
        for (const auto &item : every.items())
            if (!saved.contains(item.key()))
                refuse("not-a-checkpoint", shared.path);
        AccumConfig c = accumConfigFromJson(saved);
        c.worldSize = m.at("world_size").get<int64_t>();
        c.dtype = dtypeFromString(m.at("dtype").get<std::string>());
        validate(c);
        return c;
    } catch (const json::exception &) {
        refuse("not-a-checkpoint", shared.path);
    } catch (const ConfigError &) { // a setting this build does not know, or out of its range
        refuse("not-a-checkpoint", shared.path);
    }
}

CheckpointSummary loadCheckpoint(AccumEngine &engine, const fs::path &dir, ResumeBug bug)
{
    const AccumConfig &c = engine.config();
    const json latest = readLatest(dir);
    const auto world = latest["world_size"].get<int64_t>();
    if (world != c.worldSize)
        throw CheckpointError("checkpoint/world-size-differs", TextArgs{{{"saved", double(world)}, {"run", double(c.worldSize)}}, {}});
    const fs::path genDir = dir / latest["generation"].get<std::string>();
    const int version = latest["version"].get<int>();
    const int64_t rank = engine.rank();
    const uint64_t bound = rankFileBound(c);
    const FileReader shared(genDir / rankFileName(0, version), bound);
    shared.requireRun(c);
    std::optional<FileReader> ownFile;
    if (rank != 0) {
        ownFile.emplace(genDir / rankFileName(rank, version), bound);
        ownFile->requireRun(c);
    }
    const FileReader &own = ownFile ? *ownFile : shared;
    const auto expected = shared.number<int64_t>(shared.manifest, "micro_batches");
    for (const FileReader *f : {&shared, &own}) {
        const auto found = f->number<int64_t>(f->manifest, "micro_batches");
        if (found != expected)
            refuse("inconsistent", f->path, TextArgs{{{"found", double(found)}, {"expected", double(expected)}}, {}});
        // A rank's file copied or swapped into another rank's name.
        const auto writer = f->number<int64_t>(f->manifest, "rank");
        const int64_t reader = f == &shared ? 0 : rank;
        if (writer != reader)
            refuse("wrong-rank", f->path, TextArgs{{{"found", double(writer)}, {"expected", double(reader)}}, {}});
    }

    EngineState mine;
    engine.stateLayout(mine);
    // A flat buffer (total,) from the file: format 2 holds it as one tensor, format 3 as one
    // tensor per parameter named `prefix` + "fc1.weight" (each of the run's shape, or refused).
    // Each part in the run's own dtype (`want`, the engine's buffer's): a BF16 fc1.bias among
    // float32 parts was promoted by cat and resumed a different run.
    auto flat = [&](const FileReader &f, const std::string &format2Name, const std::string &prefix, bool required,
                    torch::Dtype want) {
        if (f.version == 2)
            return f.tensor(format2Name, required);
        std::vector<torch::Tensor> parts;
        for (size_t i = 0; i < mine.paramNames.size(); ++i) {
            const torch::Tensor t = f.tensor(prefix + mine.paramNames[i], false);
            if (!t.defined() && parts.empty() && !required)
                return torch::Tensor(); // none of them: the state does not exist yet
            if (!t.defined() || t.sizes().vec() != mine.paramShapes[i] || t.scalar_type() != want)
                refuse("out-of-range", f.path,
                       TextArgs{{}, {{"field", prefix + mine.paramNames[i]},
                                     {"detail", (t.defined() ? sizes(t) : std::string("missing")) + ", this run needs " +
                                                    sizes(torch::empty(mine.paramShapes[i], torch::dtype(want)))}}});
            parts.push_back(t.reshape({-1}));
        }
        return torch::cat(parts); // (total,)
    };

    EngineState s;
    const json &sh = shared.manifest.contains("shared") ? shared.manifest["shared"] : json();
    if (!sh.is_object())
        refuse("not-a-checkpoint", shared.path);
    s.params = flat(shared, "params", "", true, mine.params.scalar_type());
    s.optimizerStateStep = shared.number<int64_t>(sh, "optimizer_state_step");
    s.momentum = flat(shared, "optimizer.momentum", "optimizer.momentum_buffer.", false, mine.params.scalar_type());
    s.expAvg = flat(shared, "optimizer.exp_avg", "optimizer.exp_avg.", false, mine.params.scalar_type());
    s.expAvgSq = flat(shared, "optimizer.exp_avg_sq", "optimizer.exp_avg_sq.", false, mine.params.scalar_type());
    s.schedulerSteps = shared.number<int64_t>(sh, "scheduler_steps");
    s.lastLr = shared.number<double>(sh, "last_lr");
    s.generator = shared.tensor("data.generator");
    s.optimizerSteps = shared.number<int64_t>(sh, "optimizer_steps");
    s.microBatches = expected;
    s.windowsDone = shared.number<int64_t>(sh, "windows_done");
    s.syncCalls = shared.number<int64_t>(sh, "sync_calls");
    s.lastLoss = shared.figure(sh, "last_loss");
    s.lastGradNorm = shared.figure(sh, "last_grad_norm");

    const json &window = own.manifest.contains("window") ? own.manifest["window"] : json();
    if (!window.is_object())
        refuse("not-a-checkpoint", own.path);
    s.open = own.number<bool>(window, "open");
    s.micro = own.number<int64_t>(window, "micro_index");
    // Format 3 saves the buffers only where they carry over; a closed window's are zeros.
    const bool gradsSaved = own.version == 2 || s.open || c.bug == AccumBug::NeverZero;
    s.grads = gradsSaved ? flat(own, "grads", "grad.", true, mine.grads.scalar_type()) : torch::zeros(mine.grads.sizes(), torch::dtype(mine.grads.scalar_type()));
    if (s.open) {
        s.windowX = own.tensor(own.version == 2 ? "window.x" : "window.noise");
        s.windowY = own.tensor("window.y");
        s.windowLosses = own.tensor("window.losses");
    }
    s.windowStartParams = flat(own, "window.start_params", "window.start.", false, mine.params.scalar_type());

    std::optional<LossScalerState> scaler;
    if (c.lossScaler.enabled) {
        const json &ls = shared.manifest.contains("loss_scaler") ? shared.manifest["loss_scaler"] : json();
        if (!ls.is_object())
            refuse("not-a-checkpoint", shared.path);
        LossScalerState st;
        st.scale = shared.number<double>(ls, "scale");
        st.growthTracker = shared.number<int64_t>(ls, "growth_tracker");
        st.skippedWindows = shared.number<int64_t>(ls, "skipped_windows");
        st.unscaleCalls = shared.number<int64_t>(ls, "unscale_calls");
        st.growths = shared.number<int64_t>(ls, "growths");
        st.backoffs = shared.number<int64_t>(ls, "backoffs");
        st.unscaledSinceUpdate = shared.number<bool>(ls, "unscaled_since_update");
        scaler = st;
    }
    checkState(s, scaler, mine, c, shared.path, own.path);

    // The teaching bugs of the resume-mid-window experiment.
    if (s.open && bug == ResumeBug::DropPartialBuffers)
        s.grads.zero_();
    if (s.open && bug == ResumeBug::RestartWindowCount) {
        s.micro = 0;
        s.windowLosses = s.windowLosses.narrow(/*dim=*/0, 0, 0);
    }
    if (bug == ResumeBug::DropOptimizerState) { // the model's weights loaded, not the optimizer's state
        s.momentum = s.expAvg = s.expAvgSq = torch::Tensor();
        s.optimizerStateStep = 0;
    }
    engine.restoreState(s);
    if (scaler)
        engine.restoreLossScalerState(*scaler);
    return {s.microBatches, s.windowsDone, s.open ? s.micro : 0, world};
}

} // namespace accumlab
