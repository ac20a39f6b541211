// test_cpp_compact.cpp — Cache::compact through the C++17 binding: every record kept
// byte for byte, the report, the file a few pages after a clear; and the exception of
// each refusal (empty path, missing file, a directory, random bytes, a truncated cache,
// read_only, the file open in this process or in another process), with the file left
// as it was.

#include "test_support.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace {

using NormCache::Cache;
using test_support::fail;
using test_support::fresh_path;
using test_support::show;

/** Puts 30 small records and 1500 records of 1 kB under "Big:" into `cache`. */
void fill(Cache &cache)
{
    std::string records = "{";
    for (int i = 0; i < 30; i++) {
        records += (i == 0 ? "" : ",") + std::string("\"Pet:") + std::to_string(i) + "\": {\"name\": \"pet " +
                   std::to_string(i) + "\", \"tags\": [" + std::to_string(i) + ", \"x\"]}";
    }
    for (int i = 0; i < 1500; i++) {
        records += ",\"Big:" + std::to_string(i) + "\": {\"v\": \"" + std::string(1000, 'x') + "\"}";
    }
    cache.put(records + "}");
}

/** Every record of the cache file at `path`, key to record JSON. */
std::map<std::string, std::string> records_of(const std::string &path)
{
    Cache cache(path);
    std::map<std::string, std::string> records;
    for (const std::string &key : cache.search("")) {
        records[key] = cache.get(key).value();
    }
    return records;
}

/** The bytes of the file at `path`. */
std::string file_bytes(const std::string &path)
{
    std::ifstream file(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

std::string show(const std::map<std::string, std::string> &records)
{
    std::string text;
    for (const auto &[key, record] : records) {
        text += key + "=" + record + " ";
    }
    return text;
}

void test_compact_keeps_records_and_shrinks()
{
    const std::string path = fresh_path();
    {
        Cache cache(path);
        fill(cache);
        cache.remove_prefix("Big:");
        cache.put(R"({"Big:3": {"v": "kept"}})");
    }
    const auto before = records_of(path);
    CHECK_EQ(before.size(), std::size_t{31});
    CHECK_EQ(before.at("Pet:4"), std::string(R"({"name":"pet 4","tags":[4,"x"]})"));
    const auto size_before = std::filesystem::file_size(path);
    CHECK(size_before > 1500 * 1000);
    const std::string report = Cache::compact(path);
    const auto size_after = std::filesystem::file_size(path);
    CHECK_EQ(report, R"({"bytes_before":)" + std::to_string(size_before) + R"(,"bytes_after":)" +
                         std::to_string(size_after) + "}");
    CHECK(size_after <= 16 * 4096);
    CHECK_EQ(records_of(path), before);

    {
        Cache cache(path);
        fill(cache);
        cache.clear();
    }
    CHECK(std::filesystem::file_size(path) > 1500 * 1000);
    Cache::compact(path, R"({"max_readers": 9})");
    CHECK(std::filesystem::file_size(path) <= 16 * 4096);
    Cache cache(path);
    CHECK_EQ(cache.search(""), test_support::Strings{});
    cache.put(R"({"Pet:1": {"name": "again"}})");
    CHECK_EQ(cache.get("Pet:1"), std::optional<std::string>(R"({"name":"again"})"));
}

void test_refusals()
{
    CHECK_THROWS_EXACT(Cache::compact(""), NormCache::InvalidArgumentError, NORMCACHE_EINVAL, "empty cache path");
    const std::string missing = fresh_path();
    CHECK_THROWS_EXACT(Cache::compact(missing), NormCache::StorageError, NORMCACHE_ESTORAGE,
                       "cannot compact '" + missing + "': cannot stat it: No such file or directory");
    const std::string directory = test_support::temp_dir().string();
    CHECK_THROWS_EXACT(Cache::compact(directory), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "cannot compact '" + directory + "': not a regular file");

    const std::string noise = fresh_path();
    std::string bytes(4096 * 3, '\0');
    for (std::size_t i = 0; i < bytes.size(); i++) {
        bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
    }
    std::ofstream(noise, std::ios::binary) << bytes;
    CHECK_THROWS_EXACT(Cache::compact(noise), NormCache::NotACacheError, NORMCACHE_ENOTCACHE,
                       "'" + noise + "' is not a normcache cache: not an LMDB file");
    CHECK(file_bytes(noise) == bytes);
    CHECK(!std::filesystem::exists(noise + "-lock"));

    const std::string truncated = fresh_path();
    {
        Cache cache(truncated);
        fill(cache);
    }
    const auto length = std::filesystem::file_size(truncated);
    std::filesystem::resize_file(truncated, length / 2);
    CHECK_THROWS_WITH(Cache::compact(truncated), NormCache::NotACacheError, NORMCACHE_ENOTCACHE,
                      "'" + truncated + "' is truncated: " + std::to_string(length / 2) + " bytes, but its pages end at byte ");
    CHECK_EQ(std::filesystem::file_size(truncated), length / 2);

    const std::string path = fresh_path();
    Cache cache(path);
    fill(cache);
    CHECK_THROWS_EXACT(Cache::compact(path, R"({"read_only": true})"), NormCache::ReadOnlyError, NORMCACHE_EREADONLY,
                       "cannot compact '" + path + "' with the option read_only: compacting rewrites the file");
    CHECK_THROWS_EXACT(Cache::compact(path), NormCache::InvalidArgumentError, NORMCACHE_EINVAL,
                       "'" + path + "' is open in this process (1 handle): close it before compacting it");
    CHECK_EQ(cache.get("Pet:2"), std::optional<std::string>(R"({"name":"pet 2","tags":[2,"x"]})"));
}

/** Another process holds the file open: refused naming it and the pid; nothing changes. */
void test_refused_while_another_process_has_it_open()
{
    const std::string path = fresh_path();
    {
        Cache cache(path);
        fill(cache);
    }
    int to_parent[2];
    int to_child[2];
    CHECK(pipe(to_parent) == 0 && pipe(to_child) == 0);
    const pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        char signal = 0;
        {
            Cache cache(path);
            if (write(to_parent[1], "o", 1) != 1 || read(to_child[0], &signal, 1) != 1 ||
                cache.get("Pet:7") != std::optional<std::string>(R"({"name":"pet 7","tags":[7,"x"]})")) {
                _exit(1);
            }
        }
        _exit(0);
    }
    char signal = 0;
    CHECK(read(to_parent[0], &signal, 1) == 1 && signal == 'o');
    const std::string bytes = file_bytes(path);
    CHECK_THROWS_EXACT(Cache::compact(path), NormCache::StorageError, NORMCACHE_ESTORAGE,
                       "cannot compact '" + path + "': another process has it open (pid " + std::to_string(child) +
                           "); compact it when no process uses it");
    CHECK(file_bytes(path) == bytes);
    CHECK(write(to_child[1], "q", 1) == 1);
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int fd : {to_parent[0], to_parent[1], to_child[0], to_child[1]}) {
        close(fd);
    }
    const auto records = records_of(path);
    Cache::compact(path);
    CHECK_EQ(records_of(path), records);
}

} // namespace

int main()
{
    test_compact_keeps_records_and_shrinks();
    test_refusals();
    test_refused_while_another_process_has_it_open();
    return 0;
}
