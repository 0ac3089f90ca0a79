// Sphinx 9.0.4's Chinese search data (language_data.js) ends with `window.Stemmer = ChineseStemmer;` but never
// defines ChineseStemmer, so search.html stops with a ReferenceError. Its Python side stems Latin words with the
// English snowball stemmer (Chinese words are cut by jieba and not stemmed), so queries must be stemmed the same
// way: a ChineseStemmer is an EnglishStemmer, which language_data.js defines just before it needs one.
window.ChineseStemmer = function ChineseStemmer() {
  return new EnglishStemmer();
};
