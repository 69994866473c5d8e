// KataGo's C++ NNInputs::fillRowV7 (cpp/neuralnet/nninputs.cpp) on every sampled row of
// a game, for checks/ladder_compare.py. Linked against the objects of a KataGo build
// (ladder_compare.py --katago-cpp: game/, core/, neuralnet/nninputs and what they use).
//
// Input, one game a line (points are kibo's: row * 19 + col, row 0 at the top; 361 pass):
//   RULES KOMI HANDICAP_BLACK_MOVES NB b.. NW w.. NM c p .. NR r ..
// RULES a KataGo rules name (japanese, korean, chinese, aga, new-zealand, tromp-taylor);
// HANDICAP_BLACK_MOVES 1 to set BoardHistory's assumeMultipleStartingBlackMovesAreHandicap;
// c 1 black, 2 white; r the 1-based move numbers of the rows (the position before move r,
// move r's colour to play), ascending.
// Output, per row: one status byte (0 ok, 1 a move before the row was illegal for
// KataGo's Board and was played anyway), then the 22 spatial channels packed as the npz
// (46 bytes a channel, most significant bit first), then the 19 globals (float32).
// The history never enters the encore (preventEncore), as kibo stays in phase 0.
#include "game/boardhistory.h"
#include "neuralnet/nninputs.h"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace std;

static const int N = 19;
static const int NSP = NNInputs::NUM_FEATURES_SPATIAL_V7;
static const int NGL = NNInputs::NUM_FEATURES_GLOBAL_V7;

static Loc locOf(int p) {
  if(p == N * N)
    return Board::PASS_LOC;
  return Location::getLoc(p % N, p / N, N);
}

int main() {
  Board::initHash();
  ScoreValue::initTables();
  ios::sync_with_stdio(false);
  string line;
  vector<float> bin(NSP * N * N), glob(NGL);
  vector<unsigned char> out;
  while(getline(cin, line)) {
    istringstream in(line);
    string rulesName;
    double komi;
    int handicapMoves, nb, nw, nm, nr;
    if(!(in >> rulesName >> komi >> handicapMoves))
      continue;
    Board board(N, N);
    in >> nb;
    for(int i = 0; i < nb; i++) {
      int p;
      in >> p;
      board.setStone(locOf(p), P_BLACK);
    }
    in >> nw;
    for(int i = 0; i < nw; i++) {
      int p;
      in >> p;
      board.setStone(locOf(p), P_WHITE);
    }
    in >> nm;
    vector<int> colors(nm), moves(nm);
    for(int i = 0; i < nm; i++)
      in >> colors[i] >> moves[i];
    in >> nr;
    vector<int> rows(nr);
    for(int i = 0; i < nr; i++)
      in >> rows[i];
    Rules rules = Rules::parseRules(rulesName);
    rules.komi = (float)komi;
    Player first = nm > 0 ? (Player)colors[0] : P_BLACK;
    BoardHistory hist(board, first, rules, 0, false);
    hist.setAssumeMultipleStartingBlackMovesAreHandicap(handicapMoves != 0);
    MiscNNInputParams params;
    unsigned char status = 0;
    out.clear();
    int r = 0;
    for(int i = 0; i <= nm && r < nr; i++) {
      while(r < nr && rows[r] == i + 1) {
        Player pla = (Player)colors[i];
        NNInputs::fillRowV7(board, hist, pla, params, N, N, false, bin.data(), glob.data());
        out.push_back(status);
        for(int c = 0; c < NSP; c++) {
          unsigned char bytes[46] = {0};
          for(int p = 0; p < N * N; p++)
            if(bin[c * N * N + p] != 0.0f)
              bytes[p / 8] |= (unsigned char)(0x80 >> (p % 8));
          out.insert(out.end(), bytes, bytes + 46);
        }
        const unsigned char* g = reinterpret_cast<const unsigned char*>(glob.data());
        out.insert(out.end(), g, g + NGL * sizeof(float));
        r++;
      }
      if(i == nm || r == nr)
        break;
      Player pla = (Player)colors[i];
      Loc loc = locOf(moves[i]);
      if(!board.isLegal(loc, pla, true))
        status = 1;
      hist.makeBoardMoveAssumeLegal(board, loc, pla, NULL, true);
    }
    fwrite(out.data(), 1, out.size(), stdout);
    fflush(stdout);
  }
}
