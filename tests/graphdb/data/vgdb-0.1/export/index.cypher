CALL CREATE_FTS_INDEX('Paper', 'paper_fts', ['title', 'abstract'], stemmer := 'english', stopWords := 'default');
CALL CREATE_FTS_INDEX('Entry', 'entry_fts', ['title', 'content'], stemmer := 'english', stopWords := 'default');
CALL CREATE_FTS_INDEX('Symbol', 'symbol_fts', ['name', 'qualname', 'signature', 'docstring'], stemmer := 'english', stopWords := 'default');
