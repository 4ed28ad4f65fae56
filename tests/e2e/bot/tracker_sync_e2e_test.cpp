// `perftriage tracker sync` and `tracker export` through the real binary against the fake GitHub's paged issue list
// (server/bot/tracker_sync.hpp): a full sync over pages with a pull request skipped, rate limits waited out or
// stopping the sync resumably, --max-pages and a resume that asks from the cursor, 5xx retried, an incremental rerun,
// the export in the evaluation sets' format, a bad repository refused before any request, hostile sizes capped.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "schema/bot_store.hpp"
#include "schema/store.hpp"
#include "schema/tracker_store.hpp"
#include "tests/e2e/bot/fake_github.hpp"
#include "tests/support/files.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kTracker = "intel/torch-xpu-ops";
constexpr std::time_t kBase = 1704067200;  // 2024-01-01T00:00:00Z

// Issue n is updated at kBase + n minutes unless told otherwise.
std::string updated(std::int64_t n) { return github_time(kBase + n * 60); }

json issue_item(std::int64_t n, const std::string& updated_at, std::vector<std::string> labels = {}) {
  json l = json::array();
  for (const auto& name : labels) l.push_back({{"id", n}, {"name", name}, {"color", "ededed"}});
  return {{"number", n},
          {"title", "[BMG] issue " + std::to_string(n)},
          {"body", n % 7 == 0 ? json() : json("body of " + std::to_string(n) + "\nwith \"quotes\" and ü")},
          {"labels", l},
          {"state", n % 3 == 0 ? "closed" : "open"},
          {"updated_at", updated_at},
          {"user", {{"login", "someone"}}}};
}

struct Ran {
  int status = -1;
  std::string out, err;
};

class TrackerSyncE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perftriage-tracker-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = perftriage::testing_support::e2e_db((dir_ / "db.sqlite").string());
    write_file(dir_ / "token", "ghp_tracker_token\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // 1..n issues (issue n updated at minute n; labels on every other one) and one pull request (number n + 50,
  // updated between issues 150 and 151).
  void seed(std::int64_t n) {
    for (std::int64_t i = 1; i <= n; ++i) {
      github_.seed_issue(kTracker, issue_item(i, updated(i),
                                              i % 2 ? std::vector<std::string>{"module: inductor", "hw: BMG"}
                                                    : std::vector<std::string>{}));
    }
    json pr = issue_item(n + 50, github_time(kBase + 150 * 60 + 30));
    pr["pull_request"] = {{"url", "https://api.github.com/repos/intel/torch-xpu-ops/pulls/300"}};
    github_.seed_issue(kTracker, pr);
  }

  Ran run(const std::string& args) {
    const std::string err = (dir_ / "stderr").string();
    const std::string cmd = "env -u PERFTRIAGE_CONFIG -u PERFTRIAGE_GITHUB_TOKEN PERFTRIAGE_GITHUB_BACKOFF_MS=20 " +
                            std::string(PERFTRIAGE_BINARY) + " " + args + " 2>" + err + " </dev/null";
    auto shell = run_shell(cmd);
    return {shell.status, std::move(shell.out), read_bytes(err)};
  }
  Ran sync(const std::string& extra = {}) {
    return run("tracker sync --json --db " + db_ + " --repo " + kTracker + " --api-base " + github_.base_url() +
               " --token-file " + (dir_ / "token").string() + " " + extra);
  }
  static json report(const Ran& r) {
    auto j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
    return j;
  }
  // The issue-list requests, in order, from `from` on.
  std::vector<FakeGitHub::Request> listed(std::size_t from = 0) {
    auto all = github_.requests("GET", R"(^/repos/intel/torch-xpu-ops/issues\?)");
    return {all.begin() + static_cast<std::ptrdiff_t>(std::min(from, all.size())), all.end()};
  }
  std::vector<schema::TrackerIssue> stored() {
    auto store = schema::Store::open(db_);
    EXPECT_TRUE(store.ok());
    auto issues = schema::list_tracker_issues(store->db(), kTracker);
    EXPECT_TRUE(issues.ok());
    return issues.ok() ? *issues : std::vector<schema::TrackerIssue>{};
  }
  schema::TrackerSyncState progress() {
    auto store = schema::Store::open(db_);
    EXPECT_TRUE(store.ok());
    auto s = schema::find_tracker_sync(store->db(), kTracker);
    EXPECT_TRUE(s.ok() && s->has_value());
    return s.ok() && s->has_value() ? **s : schema::TrackerSyncState{};
  }

  FakeGitHub github_;
  fs::path dir_;
  std::string db_;
};

TEST_F(TrackerSyncE2E, FullSyncOverThreePagesSkipsThePullRequest) {
  seed(250);
  const auto r = sync();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = report(r);
  EXPECT_EQ(j["mode"], "full");
  EXPECT_EQ(j["pages"], 3);
  EXPECT_EQ(j["pull_requests"], 1);
  EXPECT_EQ(j["stored"], 250);
  EXPECT_EQ(j["finished"], true);
  EXPECT_TRUE(j["error"].is_null());
  const auto reqs = listed();
  ASSERT_EQ(reqs.size(), 3u);
  for (const auto& q : reqs) {
    EXPECT_NE(q.target.find("state=all&sort=updated&direction=asc&per_page=100&page=1"), std::string::npos) << q.target;
    EXPECT_EQ(q.headers.at("authorization"), "Bearer ghp_tracker_token");
  }
  EXPECT_EQ(reqs[0].target.find("since="), std::string::npos);  // the whole history
  EXPECT_NE(reqs[1].target.find("since=" + updated(100)), std::string::npos) << reqs[1].target;
  // Page 2 held issues 100..150, the pull request and 151..198.
  EXPECT_NE(reqs[2].target.find("since=" + updated(198)), std::string::npos) << reqs[2].target;
  const auto issues = stored();
  ASSERT_EQ(issues.size(), 250u);
  for (std::size_t i = 0; i < issues.size(); ++i) EXPECT_EQ(issues[i].number, static_cast<std::int64_t>(i + 1));
  EXPECT_EQ(issues[0].labels, (std::vector<std::string>{"module: inductor", "hw: BMG"}));
  EXPECT_TRUE(issues[1].labels.empty());
  EXPECT_EQ(issues[2].state, "closed");
  EXPECT_EQ(issues[6].body, "");  // null
  EXPECT_EQ(issues[0].body, "body of 1\nwith \"quotes\" and ü");
  EXPECT_EQ(issues[249].updated_at, updated(250));
  const auto p = progress();
  EXPECT_TRUE(p.finished);
  EXPECT_EQ(p.cursor_updated_at, updated(250));
}

TEST_F(TrackerSyncE2E, RateLimitsMidwayAreWaitedOut) {
  seed(250);
  github_.fail_next("GET", "since=", FakeGitHub::Fault::rate_limit_403);   // page 2: x-ratelimit-remaining: 0
  github_.fail_next("GET", "since=", FakeGitHub::Fault::retry_after_429);  // then a secondary limit
  const auto r = sync();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = report(r);
  EXPECT_EQ(j["rate_limit_waits"], 2);
  EXPECT_GE(j["waited_ms"].get<std::int64_t>(), 2000);
  EXPECT_EQ(j["stored"], 250);
  EXPECT_EQ(j["finished"], true);
  const auto reqs = listed();
  ASSERT_EQ(reqs.size(), 5u);                                          // page 1, page 2 three times, page 3
  EXPECT_GE(reqs[2].at - reqs[1].at, std::chrono::milliseconds(900));  // waited for x-ratelimit-reset
  EXPECT_GE(reqs[3].at - reqs[2].at, std::chrono::milliseconds(900));  // and for retry-after: 1
  EXPECT_NE(r.err.find("rate limited"), std::string::npos) << r.err;
}

TEST_F(TrackerSyncE2E, ARateLimitOverTheLongestWaitStopsAndTheRerunResumes) {
  seed(250);
  github_.fail_next("GET", "since=", FakeGitHub::Fault::rate_limit_403);
  const auto r = sync("--max-wait-s 0");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  const auto j = report(r);
  EXPECT_EQ(j["error"]["code"], "rate_limited");
  EXPECT_EQ(j["pages"], 1);
  EXPECT_EQ(j["finished"], false);
  EXPECT_NE(r.err.find("--max-wait-s"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rate_limited"), std::string::npos) << r.err;
  EXPECT_EQ(stored().size(), 100u);
  EXPECT_NE(progress().last_error.find("rate limit"), std::string::npos);
  const std::size_t before = listed().size();
  const auto again = sync();
  ASSERT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_EQ(report(again)["mode"], "resumed");
  const auto reqs = listed(before);
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_NE(reqs[0].target.find("since=" + updated(100)), std::string::npos) << reqs[0].target;
  EXPECT_EQ(stored().size(), 250u);
  EXPECT_EQ(progress().last_error, "");
}

TEST_F(TrackerSyncE2E, MaxPagesStopsAndTheRerunAsksFromTheCursorNotPageOne) {
  seed(250);
  const auto first = sync("--max-pages 1");
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  EXPECT_EQ(report(first)["pages"], 1);
  EXPECT_EQ(report(first)["finished"], false);
  EXPECT_EQ(stored().size(), 100u);
  EXPECT_EQ(progress().cursor_updated_at, updated(100));
  ASSERT_EQ(listed().size(), 1u);

  const auto second = sync();
  ASSERT_EQ(second.status, 0) << second.out << second.err;
  const auto j = report(second);
  EXPECT_EQ(j["mode"], "resumed");
  EXPECT_EQ(j["since"], updated(100));
  EXPECT_EQ(j["pages"], 2);
  const auto reqs = listed(1);
  ASSERT_EQ(reqs.size(), 2u);
  // Neither asks for the first page of the whole history again: the rerun starts at issue 100 (the cursor's own
  // second, asked again on purpose) and ends with the last page.
  for (const auto& q : reqs) EXPECT_NE(q.target.find("since="), std::string::npos) << q.target;
  EXPECT_NE(reqs[0].target.find("since=" + updated(100)), std::string::npos) << reqs[0].target;
  EXPECT_EQ(j["issues"], 99 + 53);  // 100..198 (the pull request skipped), then 198..250
  EXPECT_EQ(stored().size(), 250u);
  EXPECT_TRUE(progress().finished);
}

TEST_F(TrackerSyncE2E, AKillBetweenPagesResumesAfterTheLastPageStored) {
  seed(250);
  github_.set_hang_ms(10000);
  github_.fail_next("GET", "since=", FakeGitHub::Fault::hang);  // page 2 never answers: the process is killed there
  const std::string pid_file = (dir_ / "pid").string();
  const std::string cmd = "(env -u PERFTRIAGE_CONFIG -u PERFTRIAGE_GITHUB_TOKEN " + std::string(PERFTRIAGE_BINARY) +
                          " tracker sync --db " + db_ + " --repo " + kTracker + " --api-base " + github_.base_url() +
                          " >/dev/null 2>&1 </dev/null & echo $! > " + pid_file + ")";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (listed().size() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(listed().size(), 2u);
  const pid_t pid = std::stoi(read_bytes(pid_file));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  while (::kill(pid, 0) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(stored().size(), 100u);  // page 1, whole
  EXPECT_EQ(progress().cursor_updated_at, updated(100));
  EXPECT_FALSE(progress().finished);
  const auto again = sync();
  ASSERT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_EQ(report(again)["mode"], "resumed");
  const auto reqs = listed(2);
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_NE(reqs[0].target.find("since=" + updated(100)), std::string::npos) << reqs[0].target;
  EXPECT_EQ(stored().size(), 250u);
}

TEST_F(TrackerSyncE2E, ServerErrorsAreRetriedThenStopResumably) {
  seed(250);
  github_.fail_next("GET", "since=", FakeGitHub::Fault::error500, 2);
  const auto r = sync();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(report(r)["retries"], 2);
  EXPECT_EQ(report(r)["stored"], 250);

  seed(260);  // ten more, past the cursor
  github_.fail_next("GET", "since=", FakeGitHub::Fault::error500, 4);
  const auto stopped = sync();
  EXPECT_EQ(stopped.status, 1) << stopped.out << stopped.err;
  EXPECT_EQ(report(stopped)["error"]["code"], "github_unavailable");
  EXPECT_EQ(report(stopped)["retries"], 3);  // 4 attempts
  EXPECT_EQ(report(stopped)["stored"], 250);
  EXPECT_NE(stopped.err.find("HTTP 500"), std::string::npos) << stopped.err;
  EXPECT_NE(progress().last_error.find("HTTP 500"), std::string::npos);
  const auto again = sync();
  ASSERT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_EQ(report(again)["mode"], "resumed");
  EXPECT_EQ(report(again)["stored"], 260);
}

TEST_F(TrackerSyncE2E, AnIncrementalRerunAsksSinceTheCursor) {
  seed(250);
  ASSERT_EQ(sync().status, 0);
  const std::size_t before = listed().size();
  github_.seed_issue(kTracker, issue_item(5, updated(400), {"duplicate"}));  // edited since
  github_.seed_issue(kTracker, issue_item(251, updated(401), {"hw: LNL"}));  // new
  const auto r = sync();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = report(r);
  EXPECT_EQ(j["mode"], "incremental");
  EXPECT_EQ(j["pages"], 1);
  EXPECT_EQ(j["issues"], 3);  // 250 (the cursor's second), 5, 251
  const auto reqs = listed(before);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_NE(reqs[0].target.find("since=" + updated(250)), std::string::npos) << reqs[0].target;
  const auto issues = stored();
  ASSERT_EQ(issues.size(), 251u);
  EXPECT_EQ(issues[4].labels, std::vector<std::string>{"duplicate"});
  EXPECT_EQ(issues[250].labels, std::vector<std::string>{"hw: LNL"});
  EXPECT_EQ(progress().cursor_updated_at, updated(401));
}

TEST_F(TrackerSyncE2E, MoreThanAPageInOneSecondAndNoLinkHeader) {
  github_.set_issue_links(false);  // the end is a short page
  for (std::int64_t i = 1; i <= 150; ++i) github_.seed_issue(kTracker, issue_item(i, updated(0)));  // one bulk edit
  for (std::int64_t i = 151; i <= 160; ++i) github_.seed_issue(kTracker, issue_item(i, updated(i)));
  const auto r = sync();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(report(r)["stored"], 160);
  const auto reqs = listed();
  ASSERT_EQ(reqs.size(), 3u);
  // Page 1 of since= the bulk second cannot move the cursor: page 2 of the same since follows, and ends the list.
  EXPECT_NE(reqs[1].target.find("page=1&since=" + updated(0)), std::string::npos) << reqs[1].target;
  EXPECT_NE(reqs[2].target.find("page=2&since=" + updated(0)), std::string::npos) << reqs[2].target;
  EXPECT_TRUE(progress().finished);
  EXPECT_EQ(progress().cursor_updated_at, updated(160));
}

TEST_F(TrackerSyncE2E, ExportIsTheEvaluationSetFormat) {
  seed(250);
  ASSERT_EQ(sync().status, 0);
  const auto r = run("tracker export --db " + db_ + " --repo " + kTracker);
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::int64_t n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    const auto j = json::parse(line, nullptr, false);
    ASSERT_TRUE(j.is_object()) << line;
    EXPECT_EQ(line.rfind("{\"repo\": \"intel/torch-xpu-ops\", \"number\": " + std::to_string(n) + ", \"url\": ", 0), 0u)
        << line;
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
    EXPECT_EQ(keys.size(), 6u);
    EXPECT_EQ(j["url"], "https://github.com/intel/torch-xpu-ops/issues/" + std::to_string(n));
    EXPECT_EQ(j["title"], "[BMG] issue " + std::to_string(n));
    const json labels = n % 2 ? json::array({"module: inductor", "hw: BMG"}) : json::array();
    EXPECT_EQ(j["labels"], labels);
  }
  EXPECT_EQ(n, 250);
  EXPECT_EQ(
      r.out.find(
          "\"labels\": [\"module: inductor\", \"hw: BMG\"], \"body\": \"body of 1\\nwith \\\"quotes\\\" and ü\"}"),
      r.out.find("\"labels\""));
}

// The real-tracker evaluation set, stored as a sync stores it, exports byte for byte as it is written.
TEST_F(TrackerSyncE2E, ExportReproducesTheEvaluationSetByteForByte) {
  const std::string fixture_text = read_fixture("labeler/real/torch-xpu-ops.jsonl");
  std::vector<schema::TrackerIssue> issues;
  std::istringstream in(fixture_text);
  for (std::string line; std::getline(in, line);) {
    const auto j = json::parse(line);
    issues.push_back({j["repo"], j["number"], j["title"], j["body"], j["labels"].get<std::vector<std::string>>(),
                      "open", updated(1)});
  }
  ASSERT_GT(issues.size(), 100u);
  {
    auto store = schema::Store::open(db_);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(schema::store_tracker_page(store->db(), issues, {kTracker, "", updated(1), 1, true, "", ""}).ok());
  }
  const auto r = run("tracker export --db " + db_ + " --repo " + kTracker);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, fixture_text);
}

// The learned layer's whole path: real tracker issues served by the fake GitHub, synced over its pages, then
// `tracker train --db` fits exactly the model that `tracker train --from` fits on the same issues as a file (the way
// the built-in model is made: CTest label_model_* retrains that one from the whole history and compares it with the
// committed file). The first 120 issues of the history: more than one page, every kind of label, a fraction of the
// training time of all of them.
TEST_F(TrackerSyncE2E, TheSyncedHistoryTrainsAsTheSameIssuesInAFile) {
  std::istringstream in(read_fixture("labeler/real/history/torch-xpu-ops.jsonl"));
  const auto file = (dir_ / "history.jsonl").string();
  std::ofstream subset(file);
  std::int64_t i = 0;
  for (std::string line; i < 120 && std::getline(in, line);) {
    const auto j = json::parse(line);
    json item = issue_item(j["number"], updated(++i), j["labels"].get<std::vector<std::string>>());
    item["title"] = j["title"];
    item["body"] = j["body"];
    github_.seed_issue(kTracker, item);
    subset << line << '\n';
  }
  subset.close();
  ASSERT_EQ(i, 120);
  const auto synced = sync();
  ASSERT_EQ(synced.status, 0) << synced.out << synced.err;
  EXPECT_EQ(report(synced)["stored"], i);
  const auto from_db = (dir_ / "model-db.json").string();
  const auto from_file = (dir_ / "model-file.json").string();
  const auto trained = run("tracker train --db " + db_ + " --repo " + kTracker + " --threshold 0.5 --out " + from_db);
  ASSERT_EQ(trained.status, 0) << trained.out << trained.err;
  const auto reference = run("tracker train --from " + file + " --threshold 0.5 --out " + from_file);
  ASSERT_EQ(reference.status, 0) << reference.out << reference.err;
  auto got = json::parse(read_bytes(from_db));
  auto want = json::parse(read_bytes(from_file));
  EXPECT_EQ(got["source"], "db:intel/torch-xpu-ops");
  got.erase("source");
  want.erase("source");
  EXPECT_FALSE(got.empty());
  EXPECT_EQ(got, want);
}

// Learning from corrections, end to end through the store: the bot applied `performance` to slower-than-eager issues,
// maintainers removed it from twelve of them (what the webhook records on a human `unlabeled`); `tracker train --db`
// takes those removals as the truth, and the label's threshold (the probability from which the tiered layer applies
// it) moves up or out of reach. A label a maintainer added shows in the count of corrections the training used.
TEST_F(TrackerSyncE2E, MaintainersCorrectionsMoveALabelsThresholdOnRetraining) {
  std::vector<schema::TrackerIssue> issues;
  const char* fillers[] = {"resnet50", "bert", "t5 small", "vit", "yolo"};
  for (int i = 0; i < 60; ++i) {
    const bool zorbix = i % 2 == 0;
    issues.push_back({kTracker,
                      3000 + i,
                      std::string(fillers[i % 5]) + " slower than eager on " + (zorbix ? "zorbix" : "quokka"),
                      std::string("speedup 0.61, inductor slower than eager\ncard ") + (zorbix ? "zorbix" : "quokka"),
                      {zorbix ? "performance" : "regression"},
                      "open",
                      updated(1)});
  }
  auto store = schema::Store::open(db_);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(schema::store_tracker_page(store->db(), issues, {kTracker, "", updated(1), 1, true, "", ""}).ok());
  const auto thresholds = [&](const std::string& out_name) {
    const auto r =
        run("tracker train --db " + db_ + " --repo " + kTracker + " --json --out " + (dir_ / out_name).string());
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    return json::parse(r.out);
  };
  const auto performance = [](const json& report) {
    for (const auto& t : report["thresholds"])
      if (t["label"] == "performance" && t["source"] == "rules") return t;
    return json();
  };
  const auto before = thresholds("before.json");
  EXPECT_EQ(before["corrections"], 0);
  ASSERT_TRUE(performance(before)["applied_from"].is_number()) << before.dump();
  for (int i = 0; i < 24; i += 2) {  // the bot labeled twelve zorbix issues; a maintainer took `performance` off
    const std::int64_t n = 3000 + i;
    schema::LabeledIssue row{kTracker,
                             n,
                             issues[static_cast<std::size_t>(i)].title,
                             json::array(),
                             json::array({"performance"}),
                             json{{"labels", {"performance"}}},
                             {}};
    ASSERT_TRUE(schema::save_labeled_issue(store->db(), row).ok());
    ASSERT_TRUE(schema::record_bot_labels(store->db(), kTracker, n, {"performance"}).ok());
    ASSERT_TRUE(schema::record_human_removal(store->db(), kTracker, n, "performance").ok());
  }
  ASSERT_TRUE(schema::record_human_label(store->db(), kTracker, 3000, "hw: BMG").ok());  // and added one it missed
  const auto after = thresholds("after.json");
  EXPECT_EQ(after["corrections"], 13);
  const json was = performance(before);
  const json now = performance(after);
  EXPECT_EQ(now["kept"], was["kept"].get<int>() - 12);
  EXPECT_TRUE(now["applied_from"].is_null() || now["applied_from"].get<double>() > was["applied_from"].get<double>())
      << was << " -> " << now;
}

TEST_F(TrackerSyncE2E, ABadRepositoryIsRefusedBeforeAnyRequest) {
  for (const std::string repo : {"'intel/torch-xpu-ops/milestones?x='", "noslash", "'a/..'", "-bad/name"}) {
    const auto r = run("tracker sync --db " + db_ + " --repo " + repo + " --api-base " + github_.base_url());
    EXPECT_NE(r.status, 0) << repo;
    if (repo != "-bad/name") {  // CLI11 takes that one for an option: a usage error
      EXPECT_NE(r.err.find("bad_repo"), std::string::npos) << repo << r.err;
    }
  }
  EXPECT_EQ(run("tracker export --db " + db_ + " --repo noslash").status, 1);
  EXPECT_EQ(run("tracker sync --db " + db_ + " --repo a/b --since yesterday --api-base " + github_.base_url()).status,
            1);
  EXPECT_TRUE(github_.requests().empty());
}

TEST_F(TrackerSyncE2E, HostileSizesAreCapped) {
  json item = issue_item(1, updated(1));
  std::string title;
  for (int i = 0; i < 1000; ++i) title += "é";
  item["title"] = title;
  item["body"] = std::string(1 << 20, 'x') + "ü";
  std::string body = std::string(65535, 'y') + "ü";  // a two-byte character across the cut
  json many = json::array();
  for (int i = 0; i < 500; ++i) many.push_back({{"name", "label-" + std::to_string(i) + std::string(300, 'z')}});
  item["labels"] = many;
  github_.seed_issue(kTracker, item);
  json second = issue_item(2, updated(2));
  second["body"] = body;
  github_.seed_issue(kTracker, second);
  const auto r = sync();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(report(r)["truncated"], 2);
  const auto issues = stored();
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].title.size(), 256u * 2);  // 256 characters of two bytes
  EXPECT_EQ(issues[0].body.size(), 65536u);
  EXPECT_EQ(issues[0].labels.size(), 100u);
  EXPECT_EQ(issues[0].labels[0].size(), 100u);
  EXPECT_EQ(issues[1].body, std::string(65535, 'y'));  // not half of the ü
}

}  // namespace
}  // namespace perftriage::testing
