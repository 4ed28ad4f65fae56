#include <gtest/gtest.h>

#include <string>

#include "ingest/archive.hpp"

namespace pi = perftriage::ingest;

TEST(Multipart, CrlfPartsWithPathFilenamesAndContentType) {
  const std::string body =
      "preamble to ignore\r\n"
      "--XyZ\r\n"
      "Content-Disposition: form-data; name=\"platform\"\r\n"
      "\r\n"
      "BMG\r\n"
      "--XyZ\r\n"
      "content-disposition: form-data; name=\"file\"; "
      "filename=\"huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-"
      "performance.csv\"\r\n"
      "Content-Type: text/csv\r\n"
      "\r\n"
      "dev,name\r\nxpu,m\r\n"
      "\r\n--XyZ--\r\n"
      "epilogue";
  auto r = pi::parse_multipart(body, "multipart/form-data; boundary=XyZ");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "platform");
  EXPECT_EQ((*r)[0].filename, "");
  EXPECT_EQ((*r)[0].body, "BMG");
  EXPECT_EQ((*r)[1].name, "file");
  EXPECT_EQ((*r)[1].filename,
            "huggingface/bfloat16/inference/performance/"
            "inductor-results-huggingface-bfloat16-inference-xpu-performance.csv");
  EXPECT_EQ((*r)[1].content_type, "text/csv");
  EXPECT_EQ((*r)[1].body, "dev,name\r\nxpu,m\r\n");
}

TEST(Multipart, QuotedBoundaryLfOnlyAndBinaryBody) {
  static const char kBin[] = "PK\x03\x04\0\0\r\n--not-the-boundary\n\xff\x00";
  const std::string bin(kBin, sizeof(kBin) - 1);
  ASSERT_EQ(bin.size(), 29u);
  const std::string body =
      "--a b;c\n"
      "Content-Disposition: form-data; name=\"archive\"; filename=\"runs.zip\"\n"
      "Content-Type: application/zip\n"
      "\n" +
      bin +
      "\n--a b;c\n"
      "Content-Disposition: form-data; name=\"empty\"\n"
      "\n"
      "\n--a b;c--";
  auto r = pi::parse_multipart(body, "Multipart/Form-Data; charset=utf-8; Boundary=\"a b;c\"");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].filename, "runs.zip");
  EXPECT_EQ((*r)[0].content_type, "application/zip");
  EXPECT_EQ((*r)[0].body, bin);
  EXPECT_EQ((*r)[1].name, "empty");
  EXPECT_EQ((*r)[1].body, "");
}

TEST(Multipart, EscapedQuoteAndExtendedFilename) {
  const std::string body =
      "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a\\\"b.csv\"\r\n\r\nx\r\n"
      "--b\r\nContent-Disposition: form-data; name=\"g\"; filename*=UTF-8''dir%2Fy.csv\r\n\r\ny\r\n--b--\r\n";
  auto r = pi::parse_multipart(body, "multipart/form-data; boundary=b");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].filename, "a\"b.csv");
  EXPECT_EQ((*r)[1].filename, "dir/y.csv");
  EXPECT_EQ((*r)[1].body, "y");
}

TEST(MultipartErrors, MissingBoundaryParameter) {
  auto r = pi::parse_multipart("--b\r\n\r\n--b--", "multipart/form-data");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_multipart");
  EXPECT_EQ(r.error().kind, perftriage::ErrorKind::invalid_input);
}

TEST(MultipartErrors, NotMultipart) {
  auto r = pi::parse_multipart("x", "application/json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_multipart");
  EXPECT_EQ(r.error().kind, perftriage::ErrorKind::unsupported_media_type);
}

TEST(MultipartErrors, NoClosingBoundary) {
  const std::string body = "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.csv\"\r\n\r\ntruncated";
  auto r = pi::parse_multipart(body, "multipart/form-data; boundary=b");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_multipart");
  EXPECT_NE(r.error().message.find("not closed"), std::string::npos);
}

TEST(MultipartErrors, NoBoundaryLineAtAll) {
  auto r = pi::parse_multipart("just text", "multipart/form-data; boundary=b");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_multipart");
}

TEST(MultipartErrors, PartWithoutDisposition) {
  auto r = pi::parse_multipart("--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--", "multipart/form-data; boundary=b");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_multipart");
}

TEST(MultipartErrors, TruncatedHeaders) {
  auto r = pi::parse_multipart("--b\r\nContent-Disposition: form-data; name=\"f\"", "multipart/form-data; boundary=b");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_multipart");
}
